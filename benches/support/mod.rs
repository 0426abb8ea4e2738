//! What several benchmarks share: the release binary they run as a subprocess, and the
//! medians of alternated runs with their intervals.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The release `arbiter` binary, built if needed with the `arbiter-jail` that builds its
/// bots' jails; or `$BENCH_ARBITER`, another build of it (an earlier commit's, say), for
/// the figures a bench takes of the command line.
pub fn arbiter_binary() -> PathBuf {
    if let Some(other) = std::env::var_os("BENCH_ARBITER").filter(|p| !p.is_empty()) {
        let other = PathBuf::from(other);
        assert!(
            other.is_file(),
            "BENCH_ARBITER: {} is missing",
            other.display()
        );
        return other;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "--bins"])
        .current_dir(&root)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --release --bins failed");
    let bin = target.join("release").join("arbiter");
    assert!(bin.is_file(), "{} is missing", bin.display());
    bin
}

/// The median of `xs`.
pub fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The median of `xs` and a distribution-free 95% confidence interval for it (`None` with
/// too few values for one: fewer than 6). The interval between the k-th smallest and the
/// k-th largest value holds the median with probability 1 - 2 P(B < k), B ~ Binomial(n,
/// 1/2): the largest k that keeps that at 95% or more.
pub fn median_interval(mut xs: Vec<f64>) -> (f64, Option<(f64, f64)>) {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    let k = statrs::distribution::Binomial::new(0.5, n as u64)
        .ok()
        .and_then(|b| {
            use statrs::distribution::DiscreteCDF;
            (1..=n / 2)
                .take_while(|&k| b.cdf(k as u64 - 1) <= 0.025)
                .last()
        });
    (xs[n / 2], k.map(|k| (xs[k - 1], xs[n - k])))
}

/// Alternated runs of arbiter and the baseline: the medians of each, and the ratio of each
/// run to the baseline's run beside it. On a machine whose speed drifts, a run and its
/// neighbour share the drift, so their ratios vary less than either side's times.
pub struct Paired {
    /// Arbiter's median, in seconds.
    pub arbiter: f64,
    /// The baseline's median, in seconds.
    pub baseline: f64,
    /// The median of the runs' ratios.
    pub ratio: f64,
    /// A distribution-free 95% confidence interval for it (`None` with too few runs for
    /// one: fewer than 6).
    pub interval: Option<(f64, f64)>,
    pub runs: usize,
}

impl Paired {
    pub fn new(arbiter: &[f64], baseline: &[f64]) -> Paired {
        let ratios: Vec<f64> = arbiter.iter().zip(baseline).map(|(a, b)| a / b).collect();
        let runs = ratios.len();
        let (ratio, interval) = median_interval(ratios);
        Paired {
            arbiter: median(arbiter.to_vec()),
            baseline: median(baseline.to_vec()),
            ratio,
            interval,
            runs,
        }
    }

    /// `1.023x run by run (95% CI 1.004-1.041, 15 alternated runs)`.
    pub fn ratio_text(&self) -> String {
        match self.interval {
            Some((lo, hi)) => format!(
                "{:.3}x run by run (95% CI {lo:.3}-{hi:.3}, {} alternated runs)",
                self.ratio, self.runs
            ),
            None => format!("{:.3}x run by run ({} runs)", self.ratio, self.runs),
        }
    }
}

/// The environment variable `name` parsed, or `default` when it is unset or does not parse.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// CPU seconds (user + system) of this process and of its reaped children.
pub fn cpu_seconds() -> [f64; 2] {
    let of = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut usage) };
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        tv(usage.ru_utime) + tv(usage.ru_stime)
    };
    [of(libc::RUSAGE_SELF), of(libc::RUSAGE_CHILDREN)]
}

/// The machine's load averages (1, 5 and 15 minutes), as /proc/loadavg gives them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}
