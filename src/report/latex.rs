//! report.tex and report/tables/*.tex: the report as a LaTeX document that pdflatex
//! compiles as it is (its plots the PDFs beside it), and each of its tables in a file of
//! its own, to `\input` into a paper that loads `booktabs`, `longtable` and `array`.
//!
//! Text columns whose cells run long wrap in a column of a set width instead of widening
//! the table; a table of many rows is a `longtable`, which breaks across pages with its
//! header repeated; a short table is a `table` float, shrunk to the line only when its
//! numbers still make it wider.

use super::model::Report;
use super::plots;
use super::tables::{self, Align, Table};

/// The folder of the tables' files, inside the report's.
pub(crate) const TABLES_DIR: &str = "tables";

/// More rows than this make a `longtable`: a float cannot break across pages.
const LONG_ROWS: usize = 25;
/// The most rows a shrunk float still holds on a page.
const FLOAT_ROWS: usize = 60;
/// About how many characters of footnote-size type, with the space between columns,
/// fill a line of the report's A4 page.
const LINE_CHARS: usize = 100;

/// About how wide `table` sets, in characters: each column as wide as its widest cell
/// (a wrapped one as wide as its share), plus the space between columns.
fn width_chars(table: &Table) -> usize {
    (0..table.columns.len())
        .map(|c| {
            let widest = std::iter::once(&table.columns[c].0)
                .chain(table.rows.iter().filter_map(|row| row.get(c)))
                .map(|cell| cell.chars().count())
                .max()
                .unwrap_or(0);
            widest.min(WRAP_CHARS) + 2
        })
        .sum()
}

/// A text column with a cell longer than this (in characters) wraps.
const WRAP_CHARS: usize = 28;

/// The whole of report.tex: a document of the report's sections, each table `\input`
/// from [`TABLES_DIR`], each plot its PDF.
pub(crate) fn render(report: &Report) -> String {
    let title = escape(&tables::title(report));
    let mut out = format!(
        "% {title}\n\
         % An arbiter tournament report: `pdflatex report.tex` in this folder. Each table\n\
         % stands in tables/ID.tex, labelled tab:arbiter-ID, to \\input into a paper that\n\
         % loads booktabs, longtable and array; each plot in plots/ as PDF, PNG and SVG.\n\
         \\documentclass[a4paper,11pt]{{article}}\n\
         \\usepackage[margin=2cm]{{geometry}}\n\
         \\usepackage{{booktabs,longtable,array,graphicx}}\n\
         \\title{{{title}}}\n\
         \\date{{}}\n\
         \\begin{{document}}\n\
         \\maketitle\n"
    );
    for section in tables::sections(report) {
        out.push_str(&format!(
            "\n\\section{{{}}}\n",
            escape(&section.title).replace(['\n', '\r'], " ")
        ));
        for line in &section.text {
            out.push_str(&format!("{}\n\n", escape(line)));
        }
        for table in &section.tables {
            out.push_str(&format!("\\input{{{TABLES_DIR}/{}}}\n", table.id));
        }
        for line in &section.notes {
            out.push_str(&format!("\n{}\n", escape(line)));
        }
        if let Some(plot) = section.plot {
            out.push_str(&format!(
                "\n\\begin{{figure}}[htbp]\n\\centering\n\
                 \\includegraphics[width=\\linewidth,height=0.8\\textheight,keepaspectratio]\
                 {{plots/{}.pdf}}\n\\caption{{{}}}\n\\label{{fig:arbiter-{}}}\n\\end{{figure}}\n",
                plot.trim_end_matches(".svg"),
                escape(plots::title(plot)),
                plot.trim_end_matches(".svg").replace('_', "-")
            ));
        }
    }
    out.push_str("\n\\end{document}\n");
    out
}

/// Every table of the report as its file name in [`TABLES_DIR`] and its text.
pub(crate) fn table_files(report: &Report) -> Vec<(String, String)> {
    tables::sections(report)
        .iter()
        .flat_map(|section| &section.tables)
        .map(|table| (format!("{}.tex", table.id), table_tex(table)))
        .collect()
}

/// The column specification: numbers right, short text left, and text too long for the
/// room the other columns leave wrapped in columns that share that room.
fn spec(table: &Table) -> String {
    let widest = |c: usize| {
        std::iter::once(&table.columns[c].0)
            .chain(table.rows.iter().filter_map(|row| row.get(c)))
            .map(|cell| cell.chars().count())
            .max()
            .unwrap_or(0)
    };
    // Only text with spaces can wrap: a long name stays whole.
    let long: Vec<bool> = (0..table.columns.len())
        .map(|c| {
            table.columns[c].1 == Align::Left
                && table.rows.iter().filter_map(|row| row.get(c)).any(|cell| {
                    cell.chars().count() > WRAP_CHARS && cell.contains(char::is_whitespace)
                })
        })
        .collect();
    let wrapped = long.iter().filter(|l| **l).count();
    let others: usize = (0..table.columns.len())
        .filter(|c| !long[*c])
        .map(|c| widest(c) + 2)
        .sum();
    // The room left, in characters, for each wrapped column (a fifth of the line at least).
    let room =
        (LINE_CHARS.saturating_sub(others + 2 * wrapped) / wrapped.max(1)).max(LINE_CHARS / 5);
    table
        .columns
        .iter()
        .enumerate()
        .map(|(c, (_, align))| match align {
            Align::Left if long[c] && widest(c) > room => format!(
                ">{{\\raggedright\\arraybackslash}}p{{{:.2}\\linewidth}}",
                0.85 * room as f64 / LINE_CHARS as f64
            ),
            Align::Left => "l".into(),
            Align::Right => "r".into(),
        })
        .collect()
}

fn header(table: &Table) -> String {
    let cells: Vec<String> = table.columns.iter().map(|(c, _)| escape(c)).collect();
    format!("{} \\\\\n", cells.join(" & "))
}

fn body(table: &Table) -> String {
    let mut out = String::new();
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
    out
}

/// One table's file: a `longtable` when it is long, else a `table` float.
fn table_tex(table: &Table) -> String {
    let caption = escape(&table.caption);
    let label = format!("tab:arbiter-{}", table.id);
    let spec = spec(table);
    let (header, body) = (header(table), body(table));
    // A long table breaks across pages when it fits the line; one wider than the line
    // (a matrix of many bots) is shrunk to it instead, in a float while a page holds it.
    let fits = width_chars(table) <= LINE_CHARS;
    if table.rows.len() > LONG_ROWS && (fits || table.rows.len() > FLOAT_ROWS) {
        // Many columns: smaller type and less space between them, in a group of its own.
        let size = if !fits {
            "\\scriptsize\\setlength{\\tabcolsep}{2pt}\n"
        } else if table.columns.len() > 10 {
            "\\footnotesize\\setlength{\\tabcolsep}{3pt}\n"
        } else {
            "\\small\n"
        };
        format!(
            "{{{size}\\begin{{longtable}}{{{spec}}}\n\\caption{{{caption}}}\\label{{{label}}} \\\\\n\
             \\toprule\n{header}\\midrule\n\\endfirsthead\n\
             \\multicolumn{{{n}}}{{l}}{{\\emph{{{caption} (continued)}}}} \\\\\n\
             \\toprule\n{header}\\midrule\n\\endhead\n\
             \\bottomrule\n\\endlastfoot\n{body}\\end{{longtable}}}}\n",
            n = table.columns.len()
        )
    } else {
        // Many columns: less space between them before any shrinking.
        let size = if table.columns.len() > 10 {
            "\\setlength{\\tabcolsep}{3pt}\n"
        } else {
            ""
        };
        format!(
            "\\begin{{table}}[htbp]\n\\centering\n{size}\\caption{{{caption}}}\n\\label{{{label}}}\n\
             \\resizebox{{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}}{{!}}{{%\n\
             \\begin{{tabular}}{{{spec}}}\n\\toprule\n{header}\\midrule\n{body}\
             \\bottomrule\n\\end{{tabular}}}}\n\\end{{table}}\n"
        )
    }
}

/// The non-ASCII letters pdflatex typesets in its default fonts from UTF-8 input.
const LATIN_LETTERS: &str = "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝßàáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ";

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
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            // In the default OT1 fonts a bare `|` prints as a dash.
            '|' => out.push_str("\\textbar{}"),
            '&' | '%' | '$' | '#' | '_' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            '<' => out.push_str("$<$"),
            '>' => out.push_str("$>$"),
            '±' => out.push_str("$\\pm$"),
            '×' => out.push_str("$\\times$"),
            '≤' => out.push_str("$\\leq$"),
            '≥' => out.push_str("$\\geq$"),
            'α' => out.push_str("$\\alpha$"),
            'β' => out.push_str("$\\beta$"),
            '½' => out.push_str("$\\frac{1}{2}$"),
            '–' => out.push_str("--"),
            '—' => out.push_str("---"),
            '…' => out.push_str("\\ldots{}"),
            '−' => out.push_str("$-$"),
            '√' => out.push_str("$\\surd$"),
            '\n' | '\r' | '\t' => out.push(' '),
            // pdflatex's default fonts (Computer Modern, OT1) build the accented Latin
            // letters; any other character (a bot's name may hold one) is named by its
            // code point rather than stop the build.
            c if (!c.is_ascii() && !LATIN_LETTERS.contains(c)) || c.is_control() => {
                out.push_str(&format!("[U+{:04X}]", c as u32))
            }
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
