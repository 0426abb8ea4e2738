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

/// A share as a whole percentage, `62.5%` as `63%`: the one rounding of every percentage
/// the tables and the plots show, so that a plot never says 62% beside a table's 63%.
pub(crate) fn percent(share: f64) -> String {
    format!("{}%", fixed(100.0 * share, 0, false))
}

/// `n` and the noun that counts it: `1 point`, `1.5 points`, `0 points`.
pub(crate) fn count(n: f64, one: &str, many: &str) -> String {
    format!("{} {}", num(n), if num(n) == "1" { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_half_percent_rounds_up_in_tables_and_plots_alike() {
        // Rust's `{:.0}` rounds 62.5 to even (62); a table rounded it to 63.
        assert_eq!(percent(5.0 / 8.0), "63%");
        assert_eq!(percent(0.0), "0%");
    }

    #[test]
    fn one_point_is_singular() {
        assert_eq!(count(1.0, "point", "points"), "1 point");
        assert_eq!(count(1.5, "point", "points"), "1.5 points");
        assert_eq!(count(0.0, "point", "points"), "0 points");
    }
}
