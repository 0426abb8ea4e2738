//! report.tex: the report's tables as booktabs tabulars, each in a `table` float with a
//! caption and a label, ready to `\input` into a document that loads `booktabs` and
//! `graphicx` (a table wider than the line is shrunk to it).

use super::model::Report;
use super::tables::{self, Align, Table};

/// The whole of report.tex.
pub fn render(report: &Report) -> String {
    let mut out = format!(
        "% {}\n% Tables of an arbiter tournament report. Needs \\usepackage{{booktabs}} and\n\
         % \\usepackage{{graphicx}}; each table is a float labelled tab:arbiter-ID, shrunk\n\
         % to the line width when it is wider.\n",
        tables::title(report)
    );
    for section in tables::sections(report) {
        out.push_str(&format!(
            "\n% {}\n",
            escape(&section.title).replace(['\n', '\r'], " ")
        ));
        for table in &section.tables {
            out.push_str(&float(table));
        }
    }
    out
}

fn float(table: &Table) -> String {
    let spec: String = table
        .columns
        .iter()
        .map(|(_, a)| match a {
            Align::Left => 'l',
            Align::Right => 'r',
        })
        .collect();
    let mut out = String::new();
    out.push_str("\\begin{table}[htbp]\n\\centering\n");
    out.push_str(&format!("\\caption{{{}}}\n", escape(&table.caption)));
    out.push_str(&format!("\\label{{tab:arbiter-{}}}\n", table.id));
    // Wide tables (many bots, many roles' columns) are shrunk to the line, never cut.
    out.push_str("\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n");
    out.push_str(&format!("\\begin{{tabular}}{{{spec}}}\n\\toprule\n"));
    let header: Vec<String> = table.columns.iter().map(|(c, _)| escape(c)).collect();
    out.push_str(&format!("{} \\\\\n\\midrule\n", header.join(" & ")));
    for row in &table.rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&table.columns)
            .map(|(cell, (_, align))| match align {
                Align::Right => number(cell),
                Align::Left => escape(cell),
            })
            .collect();
        // A row must not start with `[`: after the previous row's `\\\\` it would be read
        // as that command's optional argument.
        let guard = if cells.first().is_some_and(|c| c.starts_with('[')) {
            "{}"
        } else {
            ""
        };
        out.push_str(&format!("{guard}{} \\\\\n", cells.join(" & ")));
    }
    out.push_str("\\bottomrule\n\\end{tabular}}\n\\end{table}\n");
    out
}

/// A numeric cell with its minus signs typeset as minus signs, not hyphens.
fn number(cell: &str) -> String {
    let text = escape(cell);
    let mut out = String::with_capacity(text.len());
    let mut previous = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let signs_a_number = c == '-'
            && matches!(previous, ' ' | '[' | '(')
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_digit() || *n == 'i');
        if signs_a_number {
            out.push_str("$-$");
        } else {
            out.push(c);
        }
        previous = c;
    }
    out
}

/// Text that LaTeX typesets as written: its special characters escaped, the few
/// non-ASCII signs the report uses turned into LaTeX's own.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '<' => out.push_str("\\textless{}"),
            '>' => out.push_str("\\textgreater{}"),
            '±' => out.push_str("$\\pm$"),
            '×' => out.push_str("$\\times$"),
            '≤' => out.push_str("$\\leq$"),
            '≥' => out.push_str("$\\geq$"),
            'α' => out.push_str("$\\alpha$"),
            'β' => out.push_str("$\\beta$"),
            '½' => out.push_str("$\\frac{1}{2}$"),
            '–' => out.push_str("--"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_of_a_name_are_escaped() {
        assert_eq!(escape("a_b & 50% #1"), "a\\_b \\& 50\\% \\#1");
        assert_eq!(escape("x\\y{z}"), "x\\textbackslash{}y\\{z\\}");
        assert_eq!(escape("+3 ± 2"), "+3 $\\pm$ 2");
        assert_eq!(number("-12"), "$-$12");
        assert_eq!(number("[-31, +5]"), "[$-$31, +5]");
        assert_eq!(number("2-1"), "2-1");
        assert_eq!(number("–"), "--");
    }
}
