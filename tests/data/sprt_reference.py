#!/usr/bin/env python3
"""Reference LLR values for src/stats/sprt.rs, from fishtest's LLRcalc formulas.

Standard library only: the secular equation is solved by bisection, as scipy's brentq
would to the same precision. Run: python3 tests/data/sprt_reference.py
"""
import math

NELO_DIVIDED_BY_NT = 800 / math.log(10)


def secular(pdf):
    v = min(a for a, _ in pdf)
    w = max(a for a, _ in pdf)
    lo, hi = -1 / w + 1e-9, -1 / v - 1e-9
    f = lambda x: sum(p * a / (1 + x * a) for a, p in pdf)
    for _ in range(300):
        mid = (lo + hi) / 2
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def stats(pdf):
    s = sum(p * a for a, p in pdf)
    return s, sum(p * (a - s) ** 2 for a, p in pdf)


def mle_expected(pdfhat, s):
    x = secular([(a - s, p) for a, p in pdfhat])
    return [(a, p / (1 + x * (a - s))) for a, p in pdfhat]


def mle_t_value(pdfhat, ref, s):
    n = len(pdfhat)
    mle = [(a, 1 / n) for a, _ in pdfhat]
    for _ in range(10):
        prev = mle
        mu, var = stats(mle)
        sigma = var ** 0.5
        pdf1 = [(a - ref - s * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p) for a, p in pdfhat]
        x = secular(pdf1)
        mle = [(pdfhat[i][0], pdfhat[i][1] / (1 + x * pdf1[i][0])) for i in range(n)]
        if max(abs(prev[i][1] - mle[i][1]) for i in range(n)) < 1e-9:
            break
    return mle


def to_pdf(counts):
    counts = [c if c else 1e-3 for c in counts]
    n = sum(counts)
    return n, [(i / (len(counts) - 1), c / n) for i, c in enumerate(counts)]


def llr(pdf, p0, p1):
    return sum(p * (math.log(b) - math.log(a)) for (_, p), (_, a), (_, b) in zip(pdf, p0, p1))


def llr_logistic(elo0, elo1, counts):
    score = lambda e: 1 / (1 + 10 ** (-e / 400))
    n, pdf = to_pdf(counts)
    return n * llr(pdf, mle_expected(pdf, score(elo0)), mle_expected(pdf, score(elo1)))


def llr_normalized(nelo0, nelo1, counts):
    t0, t1 = [e / NELO_DIVIDED_BY_NT * 2 ** 0.5 for e in (nelo0, nelo1)]
    n, pdf = to_pdf(counts)
    return n * llr(pdf, mle_t_value(pdf, 0.5, t0), mle_t_value(pdf, 0.5, t1))


if __name__ == "__main__":
    for counts, e0, e1 in [([10, 20, 40, 20, 10], 0, 5), ([5, 15, 40, 25, 15], 0, 10),
                           ([0, 3, 10, 30, 57], 0, 50), ([57, 30, 10, 3, 0], 0, 50)]:
        print("logistic", counts, e0, e1, f"{llr_logistic(e0, e1, counts):.9f}")
        print("normalized", counts, e0, e1, f"{llr_normalized(e0, e1, counts):.9f}")
