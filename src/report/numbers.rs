//! How numbers are written wherever the report shows them: fixed decimals, and never a
//! minus sign on a number that rounds to zero.

/// `x` to at most 3 decimals, shortest form; empty when not finite.
pub(crate) fn num(x: f64) -> String {
    if x.is_finite() {
        // Adding 0.0 turns a -0.0 (from rounding a tiny negative) into 0.
        format!("{}", (x * 1000.0).round() / 1000.0 + 0.0)
    } else {
        String::new()
    }
}

/// `x` with `decimals` decimals (`+` sign when `signed`), never `-0.0`.
pub(crate) fn fixed(x: f64, decimals: i32, signed: bool) -> String {
    let scale = 10f64.powi(decimals);
    let x = (x * scale).round() / scale + 0.0;
    let d = decimals as usize;
    if signed {
        format!("{x:+.d$}")
    } else {
        format!("{x:.d$}")
    }
}

/// An Elo figure to one decimal; empty when not finite.
pub(crate) fn elo(x: f64) -> String {
    if x.is_finite() {
        fixed(x, 1, false)
    } else {
        String::new()
    }
}
