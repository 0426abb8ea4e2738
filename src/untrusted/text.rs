//! Text that came from a bot (its name, its error, a folder's name) made harmless for where
//! it is shown: a terminal, where control characters would clear the screen, retitle the
//! window or overwrite a line, and a CSV cell, which a spreadsheet would take for a formula.

use std::borrow::Cow;

/// `text` with every control character but newline and tab (C0, DEL, C1) and every
/// bidirectional override shown as `\u{..}`: what a terminal displays is what the text says.
pub fn terminal(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            shown.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

/// Whether `c` acts on a terminal instead of showing: a control character other than
/// newline and tab, or one that reorders the text around it.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `cell` as a spreadsheet should read it: text starting with `=`, `+`, `-`, `@`, tab or
/// carriage return would be taken for a formula, so it gets a leading `'`; a number (`-3`,
/// `+0.5`, `-1e3`) stays as it is.
pub fn csv_cell(cell: &str) -> Cow<'_, str> {
    let starts_formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    if !starts_formula || is_number(cell) {
        return Cow::Borrowed(cell);
    }
    Cow::Owned(format!("'{cell}"))
}

fn is_number(text: &str) -> bool {
    let digits = text.trim_start_matches(['+', '-']);
    digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') && text.parse::<f64>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_shown_not_obeyed() {
        assert_eq!(terminal("plain\ttext\nline"), "plain\ttext\nline");
        assert!(matches!(terminal("plain"), Cow::Borrowed(_)));
        assert_eq!(terminal("\x1b[2Jclear"), "\\u{1b}[2Jclear");
        assert_eq!(terminal("\x1b]0;pwned\x07"), "\\u{1b}]0;pwned\\u{7}");
        assert_eq!(terminal("over\rwrite"), "over\\u{d}write");
        assert_eq!(terminal("c1 \u{9b}2J"), "c1 \\u{9b}2J");
        assert_eq!(terminal("bidi \u{202e}txt.exe"), "bidi \\u{202e}txt.exe");
        assert_eq!(terminal("del\x7f"), "del\\u{7f}");
        assert_eq!(terminal("é ü 漢"), "é ü 漢");
    }

    #[test]
    fn formulas_are_guarded_and_numbers_stay_numbers() {
        for formula in [
            "=HYPERLINK(\"http://x\",\"y\")",
            "=cmd|calc!A1",
            "+1+1",
            "-1+cmd",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "-",
            "-inf",
            "+nan",
        ] {
            assert_eq!(csv_cell(formula), format!("'{formula}"), "{formula:?}");
        }
        for kept in [
            "-3", "+0.5", "-1e3", "-.5", "12", "", "Team05", "a=b", "0.25",
        ] {
            assert_eq!(csv_cell(kept), kept, "{kept:?}");
        }
    }
}
