//! Text that came from a bot or a student (its name, its error, its stderr, a file's or a
//! folder's name) made harmless for where it is shown, one escape per kind of output: a
//! terminal, where control characters would clear the screen, retitle the window or
//! overwrite a line; a CSV cell, which a spreadsheet would take for a formula and where a
//! control character or a bidirectional override hides what the cell says; and Markdown,
//! where the text would otherwise become live HTML, a link, an image or an autolink when
//! a Git forge renders the file.
//!
//! Each shows what it cannot let through as `\u{..}` (`\u{1b}` for ESC), so the text stays
//! readable and says what the bot sent.

use std::borrow::Cow;

/// `text` with every control character but newline and tab (C0, DEL, C1) and every
/// bidirectional override shown as `\u{..}`: what a terminal displays is what the text says.
pub fn terminal(text: &str) -> Cow<'_, str> {
    shown_as_codes(text, hidden)
}

/// `text` with every character `acts` names written as `\u{..}`.
fn shown_as_codes(text: &str, acts: fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(acts) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if acts(c) {
            push_code(&mut shown, c);
        } else {
            shown.push(c);
        }
    }
    Cow::Owned(shown)
}

fn push_code(out: &mut String, c: char) {
    out.push_str(&format!("\\u{{{:x}}}", c as u32));
}

/// Whether `c` acts on a terminal instead of showing: a control character other than
/// newline and tab, or one that reorders the text around it.
fn hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `cell` as a spreadsheet should read it: every control character (C0 with tab and
/// newline, DEL, C1) and every bidirectional mark, override or isolate is shown as
/// `\u{..}`, so that no cell hides, reorders or breaks what it says; then text starting with
/// `=`, `+`, `-`, `@`, tab or carriage return would be taken for a formula, so it gets a
/// leading `'`; a number (`-3`, `+0.5`, `-1e3`) stays as it is.
pub fn csv_cell(cell: &str) -> Cow<'_, str> {
    let starts_formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let cell = shown_as_codes(cell, |c| c.is_control() || hidden(c));
    if !starts_formula || is_number(&cell) {
        return cell;
    }
    Cow::Owned(format!("'{cell}"))
}

/// `text` as Markdown shows it, on one line, as written and never acted on (GitHub's
/// renderer, or any CommonMark one):
///
/// - control characters and bidirectional overrides are shown as `\u{..}`, as on a
///   terminal; a newline becomes a space (a line break would end a table row or start a
///   block), and a tab stays;
/// - `<`, `>` and `&` are written as `&lt;`, `&gt;` and `&amp;`: no HTML tag, comment,
///   entity or `<https://..>` autolink can start;
/// - `\`, `` ` ``, `*`, `_`, `~` and `|` are backslash-escaped: no emphasis, code span or
///   strike, and a table keeps its columns;
/// - a `(`, `[` or `:` right after `]` is backslash-escaped: no inline link or image
///   (`[x](url)`, `![x](url)`), reference (`[x][y]`) or link definition (`[x]: url`) can
///   form, while brackets elsewhere (`[+12, +30]`) read as they are;
/// - the autolinks GitHub makes of bare text are defanged the common way, visibly:
///   `https://host` is written `https[:]//host` (any scheme), `www.host` `www[.]host`, and
///   `name@host` `name[@]host`.
pub fn markdown(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 16);
    for (i, &c) in chars.iter().enumerate() {
        let before = |k: usize| i.checked_sub(k).map(|at| chars[at]);
        let after = |k: usize| chars.get(i + k).copied();
        match c {
            '\r' if after(1) == Some('\n') => {}
            '\n' => out.push(' '),
            c if hidden(c) => push_code(&mut out, c),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '~' | '|' => {
                out.push('\\');
                out.push(c);
            }
            '(' | '[' | ':' if before(1) == Some(']') => {
                out.push('\\');
                out.push(c);
            }
            ':' if after(1) == Some('/')
                && after(2) == Some('/')
                && before(1).is_some_and(|p| p.is_ascii_alphanumeric()) =>
            {
                out.push_str("[:]");
            }
            '.' if (1..=3).all(|k| before(k).is_some_and(|p| p.eq_ignore_ascii_case(&'w')))
                && before(4).is_none_or(|p| !p.is_alphanumeric()) =>
            {
                out.push_str("[.]");
            }
            '@' if before(1).is_some_and(|p| p.is_alphanumeric() || "._+-".contains(p))
                && after(1).is_some_and(char::is_alphanumeric) =>
            {
                out.push_str("[@]");
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` (many lines: a traceback, a stderr tail) as a fenced code block of Markdown that
/// shows every line as written and nothing else: control characters and bidirectional
/// overrides as `\u{..}` (a tab stays), and a fence longer than any run of backticks in
/// the text, so no line of it can close the block early. Inside a code block no HTML,
/// link, image or autolink renders, and indentation is kept.
pub fn markdown_block(text: &str) -> String {
    let text = text.replace("\r\n", "\n");
    let shown = shown_as_codes(text.trim_end(), hidden);
    let mut longest = 0;
    let mut run = 0;
    for c in shown.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}text\n{shown}\n{fence}\n")
}

fn is_number(text: &str) -> bool {
    let digits = text.trim_start_matches(['+', '-']);
    digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') && text.parse::<f64>().is_ok()
}

/// A name (a team's) as a file or folder name: what could leave the folder (`/`, `..`)
/// or hide the file (a leading dot) replaced.
pub fn file_name(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | '\0' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    match safe.trim_start_matches('.') {
        "" => "_".to_string(),
        rest => rest.to_string(),
    }
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
        // A tab or a carriage return first is shown as its code, and still guarded.
        assert_eq!(csv_cell("\tx"), "'\\u{9}x");
        assert_eq!(csv_cell("\r=1"), "'\\u{d}=1");
    }

    #[test]
    fn a_csv_cell_holds_no_control_or_bidirectional_character() {
        let hostile = "Team\x1b[31m\x07 raised\nagain\t\u{202e}gpj.exe\u{2066}\u{200f}\x7f\u{85}";
        let cell = csv_cell(hostile);
        assert_eq!(
            cell,
            "Team\\u{1b}[31m\\u{7} raised\\u{a}again\\u{9}\\u{202e}gpj.exe\\u{2066}\\u{200f}\\u{7f}\\u{85}"
        );
        assert!(!cell.chars().any(|c| c.is_control() || hidden(c)), "{cell}");
        assert!(matches!(csv_cell("Team05 é 漢"), Cow::Borrowed(_)));
    }

    #[test]
    fn markdown_text_makes_no_html_link_image_or_autolink() {
        let hostile = "Team<img src=x onerror=alert(1)> ![x](https://evil.example/t.png) \
                       [link](javascript:alert(1)) [ref][1] [1]: http://x <https://a.example> \
                       www.evil.example me@evil.example &#106;s \x1b[31m\x07\u{202e}";
        let shown = markdown(hostile);
        assert_eq!(
            shown,
            "Team&lt;img src=x onerror=alert(1)&gt; ![x]\\(https[:]//evil.example/t.png) \
             [link]\\(javascript:alert(1)) [ref]\\[1] [1]\\: http[:]//x &lt;https[:]//a.example&gt; \
             www[.]evil.example me[@]evil.example &amp;#106;s \\u{1b}[31m\\u{7}\\u{202e}"
        );
        for live in ["<", "](", "][", "]:", "://", "www.", "@e", "&#"] {
            assert!(!shown.contains(live), "{live:?} in {shown}");
        }
    }

    #[test]
    fn a_code_block_keeps_lines_and_indentation_and_cannot_be_closed_by_its_text() {
        let block = markdown_block("Traceback:\r\n  File \"x.py\"\n```\n<b>[a](b)</b>\x1b[2J\n\n");
        assert_eq!(
            block,
            "````text\nTraceback:\n  File \"x.py\"\n```\n<b>[a](b)</b>\\u{1b}[2J\n````\n"
        );
        assert!(markdown_block("plain").starts_with("```text\nplain\n```"));
    }

    #[test]
    fn markdown_text_keeps_tables_and_plain_text_readable() {
        assert_eq!(markdown("a|b_c*"), "a\\|b\\_c\\*");
        assert_eq!(markdown("`x` ~y~ \\"), "\\`x\\` \\~y\\~ \\\\");
        assert_eq!(
            markdown("[+12, +30] (its opponent failed too)"),
            "[+12, +30] (its opponent failed too)"
        );
        assert_eq!(
            markdown("two\r\nlines\nhere\tand a tab"),
            "two lines here\tand a tab"
        );
        assert_eq!(
            markdown("builtin:greedy a@ @b xwww.y"),
            "builtin:greedy a@ @b xwww.y"
        );
    }
}
