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
use super::tables::{self, Align, Section, Table};

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
pub(crate) fn render(report: &Report, sections: &[Section], labels: &str) -> String {
    let title = escape(&tables::title(report));
    let mut out = format!(
        "% {title}\n\
         % An arbiter tournament report: `pdflatex report.tex` in this folder. Each table\n\
         % stands in tables/ID.tex, labelled tab:{labels}-ID, to \\input into a paper that\n\
         % loads booktabs, longtable, array and graphicx; where a table is wider than the\n\
         % paper's column (a two-column paper) it is set compact, in footnote-size type.\n\
         % Each plot is in plots/ as PDF, PNG and SVG.\n\
         \\documentclass[a4paper,11pt]{{article}}\n\
         \\usepackage[margin=2cm]{{geometry}}\n\
         \\usepackage{{booktabs,longtable,array,graphicx}}\n\
         \\title{{{title}}}\n\
         \\date{{}}\n\
         \\begin{{document}}\n\
         \\maketitle\n"
    );
    for section in sections {
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
                 {{plots/{}.pdf}}\n\\caption{{{}}}\n\\label{{fig:{labels}-{}}}\n\\end{{figure}}\n",
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
pub(crate) fn table_files(sections: &[Section], labels: &str) -> Vec<(String, String)> {
    sections
        .iter()
        .flat_map(|section| &section.tables)
        .map(|table| (format!("{}.tex", table.id), table_tex(table, labels)))
        .collect()
}

/// The labels' prefix of the run in the folder `dir`: `arbiter-` and the folder's name in
/// letters, digits and `-`, so that a paper that `\input`s two runs' tables labels each
/// table once (`tab:arbiter-league-a-standings`, `tab:arbiter-league-b-standings`).
pub(crate) fn label_prefix(dir: &std::path::Path) -> String {
    let name = std::fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let mut prefix = String::from("arbiter");
    for word in name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        prefix.push('-');
        prefix.push_str(&word.to_ascii_lowercase());
    }
    prefix
}

/// A labels' prefix given on the command line, or why LaTeX could not use it: letters,
/// digits, `-`, `:` and `.` only (the characters a `\label` and `\ref` take as they are).
pub(crate) fn check_label_prefix(prefix: &str) -> Result<(), String> {
    match prefix
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | ':' | '.')))
    {
        _ if prefix.is_empty() => Err("--label-prefix is empty: expected a word such as \
                                       run-a (letters, digits, `-`, `:`, `.`)"
            .into()),
        Some(c) => Err(format!(
            "--label-prefix {prefix:?} holds {c:?}: expected letters, digits, `-`, `:` and \
             `.` only, which a LaTeX \\label takes as they are"
        )),
        None => Ok(()),
    }
}

/// The column specification: numbers right, short text left, and text too long for the
/// room the other columns leave wrapped in columns that share that room.
fn spec(table: &Table) -> String {
    spec_for(table, LINE_CHARS)
}

/// [`spec`] for a line of `line_chars` characters.
fn spec_for(table: &Table, line_chars: usize) -> String {
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
                && table
                    .rows
                    .iter()
                    .filter_map(|row| row.get(c))
                    .any(|cell| cell.chars().count() > WRAP_CHARS && cell.contains(' '))
        })
        .collect();
    let wrapped = long.iter().filter(|l| **l).count();
    let others: usize = (0..table.columns.len())
        .filter(|c| !long[*c])
        .map(|c| widest(c) + 2)
        .sum();
    // The room left, in characters, for each wrapped column (a fifth of the line at least).
    let room =
        (line_chars.saturating_sub(others + 2 * wrapped) / wrapped.max(1)).max(line_chars / 5);
    table
        .columns
        .iter()
        .enumerate()
        .map(|(c, (_, align))| match align {
            Align::Left if long[c] && widest(c) > room => format!(
                ">{{\\raggedright\\arraybackslash}}p{{{:.2}\\linewidth}}",
                0.85 * room as f64 / line_chars as f64
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
        let cells: Vec<String> = row.iter().map(|cell| escape(cell)).collect();
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
fn table_tex(table: &Table, labels: &str) -> String {
    let caption = escape(&table.caption);
    let label = format!("tab:{labels}-{}", table.id);
    let spec = spec(table);
    let (head, rows) = (header(table), body(table));
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
        // longtable refuses a two-column page: there the table is a float of the column,
        // as a short one is (compact where it is wider), which a column's height holds
        // up to about 60 rows of footnote-size type.
        format!(
            "\\makeatletter\\if@twocolumn\\makeatother\n{}\\else\\makeatother\n\
             {{{size}\\begin{{longtable}}{{{spec}}}\n\\caption{{{caption}}}\\label{{{label}}} \\\\\n\
             \\toprule\n{head}\\midrule\n\\endfirsthead\n\
             \\multicolumn{{{n}}}{{l}}{{\\emph{{{caption} (continued)}}}} \\\\\n\
             \\toprule\n{head}\\midrule\n\\endhead\n\
             \\bottomrule\n\\endlastfoot\n{rows}\\end{{longtable}}}}\n\\fi\n",
            float_tex(table, &label),
            n = table.columns.len()
        )
    } else {
        float_tex(table, &label)
    }
}

/// A table as a `table` float: as it is where the line holds it, else compact.
fn float_tex(table: &Table, label: &str) -> String {
    let caption = escape(&table.caption);
    let spec = spec(table);
    let (head, rows) = (header(table), body(table));
    {
        // Many columns: less space between them.
        let size = if table.columns.len() > 10 {
            "\\setlength{\\tabcolsep}{3pt}\n"
        } else {
            ""
        };
        // The table is set in a box first: where the paper's line holds it (a one-column
        // paper, the report itself) it goes in as it is; where not (a column of a
        // two-column paper) its compact form goes in instead, in footnote-size type, not
        // the whole table shrunk to unreadable type. Only a compact form still wider than
        // the line is shrunk to it.
        let (short, key) = compact(table);
        let compact_spec = spec_for(&short, COLUMN_CHARS);
        // A matrix's columns of short numbers: closer together.
        let sep = if short.columns.len() > 8 {
            "2pt"
        } else {
            "3pt"
        };
        let key = key.map_or_else(String::new, |key| {
            format!(
                "\\par\\smallskip\\parbox{{\\linewidth}}{{\\raggedright {}}}\n",
                escape(&key)
            )
        });
        format!(
            "\\begin{{table}}[htbp]\n\\centering\n{size}\\caption{{{caption}}}\n\\label{{{label}}}\n\
             \\sbox0{{\\begin{{tabular}}{{{spec}}}\n\\toprule\n{head}\\midrule\n{rows}\
             \\bottomrule\n\\end{{tabular}}}}%\n\
             \\ifdim\\wd0>\\linewidth\n\
             {{\\footnotesize\\setlength{{\\tabcolsep}}{{{sep}}}%\n\
             \\resizebox{{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}}{{!}}{{%\n\
             \\begin{{tabular}}{{{compact_spec}}}\n\\toprule\n{}\\midrule\n{}\
             \\bottomrule\n\\end{{tabular}}}}\n{key}}}\n\
             \\else\n\\usebox0\n\\fi\n\\end{{table}}\n",
            header(&short),
            body(&short)
        )
    }
}

/// About how many characters of footnote-size type fill a column of a two-column paper.
const COLUMN_CHARS: usize = 44;

/// The compact form of a table, for a line too narrow for it (a column of a two-column
/// paper), and the key it needs below it: the standings with their main columns only,
/// a gauntlet's head to head without its intervals, a matrix with its columns numbered
/// as its rows. Any other table is the same table, in smaller type.
fn compact(table: &Table) -> (Table, Option<String>) {
    let keep = |names: &[&str], key: &str| {
        let kept: Vec<usize> = (0..table.columns.len())
            .filter(|&c| names.contains(&table.columns[c].0.as_str()))
            .collect();
        let short = Table {
            columns: kept.iter().map(|&c| table.columns[c].clone()).collect(),
            rows: table
                .rows
                .iter()
                .map(|row| kept.iter().filter_map(|&c| row.get(c).cloned()).collect())
                .collect(),
            ..table.clone()
        };
        (short, Some(key.to_string()))
    };
    match table.id.as_str() {
        "standings" => keep(
            &["#", "bot", "games", "points", "mark", "Elo"],
            "Compact standings: wins, losses and ties, the Elo intervals, the wins by role \
             and the failures are in the report's full table.",
        ),
        "head-to-head" => keep(
            &["baseline", "W-D-L", "score", "Elo", "note"],
            "Compact: the games, the Elo intervals and the LOS are in the report's full table.",
        ),
        "teams" => keep(
            &["team", "mark", "games", "status"],
            "Compact: the failures, illegal moves and blocked turns are in the report's full \
             table.",
        ),
        "bots" => keep(
            &["bot", "spec", "marked"],
            "Compact: the files' SHA-256 digests are in the report's full table.",
        ),
        "endings" => {
            let roles: Vec<&str> = table
                .columns
                .iter()
                .map(|(c, _)| c.as_str())
                .filter(|c| c.ends_with(" wins"))
                .collect();
            let mut names = vec!["ending", "games", "ties", "median"];
            names.extend(roles);
            keep(
                &names,
                "Compact: median rounds; the fewest, the mean and the most rounds are in the \
                 report's full table.",
            )
        }
        "matrix" | "los" => {
            // Rows and columns numbered, the names in a key below: a long name widens no
            // column of the matrix.
            let mut short = table.clone();
            short.columns[0].0 = "#".into();
            for (c, column) in short.columns.iter_mut().enumerate().skip(1) {
                column.0 = c.to_string();
            }
            let mut key = Vec::new();
            for (r, row) in short.rows.iter_mut().enumerate() {
                if let Some(name) = row.first_mut() {
                    key.push(format!("{} {name}", r + 1));
                    *name = (r + 1).to_string();
                }
                // Whole percentages: a likelihood to a tenth of a percent is no narrower.
                if table.id == "los" {
                    for cell in row.iter_mut().skip(1) {
                        if let Ok(x) = cell.parse::<f64>() {
                            *cell = super::numbers::fixed(x, 0, false);
                        }
                    }
                }
            }
            let whole = if table.id == "los" {
                " (whole percentages)"
            } else {
                ""
            };
            (
                short,
                Some(format!(
                    "Rows and columns by number{whole}: {}.",
                    key.join(", ")
                )),
            )
        }
        _ => (table.clone(), None),
    }
}

/// The non-ASCII letters pdflatex typesets in its default fonts from UTF-8 input.
const LATIN_LETTERS: &str = "ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÕÖØÙÚÛÜÝßàáâãäåæçèéêëìíîïñòóôõöøùúûüýÿ";

/// Text that LaTeX typesets as written: its special characters escaped, the few
/// non-ASCII signs the report uses turned into LaTeX's own.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        // Where a word starts: after a space, a bracket or the start of the text.
        let word_start = i == 1 || matches!(chars[i - 2], ' ' | '(' | '[' | '`' | '\n');
        let next = chars.get(i).copied();
        match c {
            // An option name (`--pairs`) in typewriter type, its dashes kept apart: `--`
            // is an en dash in LaTeX.
            '-' if word_start
                && next == Some('-')
                && chars.get(i + 1).is_some_and(|c| c.is_ascii_alphabetic()) =>
            {
                let end = (i..chars.len())
                    .find(|&k| !(chars[k].is_ascii_alphanumeric() || chars[k] == '-'))
                    .unwrap_or(chars.len());
                let name: String = chars[i - 1..end].iter().collect();
                out.push_str(&format!("\\texttt{{{}}}", name.replace("--", "-{}-")));
                i = end;
            }
            // A minus sign, as every negative number of the report is typeset: `$-$`.
            '-' if word_start
                && next.is_some_and(|n| n.is_ascii_digit() || n == 'i' || n == '.') =>
            {
                out.push_str("$-$")
            }
            // Any other `--` stays two hyphens.
            '-' if next == Some('-') => out.push_str("-{}"),
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
            '\u{a0}' => out.push('~'),
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
        assert_eq!(escape("-12"), "$-$12");
        assert_eq!(escape("[-31, +5]"), "[$-$31, +5]");
        assert_eq!(escape("2-1"), "2-1");
        assert_eq!(escape("team-7"), "team-7");
        assert_eq!(escape("–"), "--");
    }

    #[test]
    fn option_names_are_typewriter_words_not_en_dashes() {
        assert_eq!(
            escape("rerun with about --pairs 12 to play on"),
            "rerun with about \\texttt{-{}-pairs} 12 to play on"
        );
        assert_eq!(escape("a--b"), "a-{}-b");
    }

    #[test]
    fn every_negative_number_is_a_minus_sign_in_text_as_in_cells() {
        assert_eq!(
            escape("the white role's fitted advantage is -12.5 ± 3.0 Elo"),
            "the white role's fitted advantage is $-$12.5 $\\pm$ 3.0 Elo"
        );
        assert_eq!(escape("LLR -0.42 (-inf)"), "LLR $-$0.42 ($-$inf)");
    }

    #[test]
    fn labels_are_prefixed_by_the_run_folders_name() {
        assert_eq!(
            label_prefix(std::path::Path::new("/x/league A_2")),
            "arbiter-league-a-2"
        );
        assert!(check_label_prefix("run-a").is_ok());
        assert!(check_label_prefix("run a").unwrap_err().contains("' '"));
    }
}
