//! A student's paper: two runs' report tables (a class of 12 teams, a gauntlet) and plots in one two-column article, as a
//! course paper `\input`s them. Every table is set at 8 pt or more in the paper's column
//! (a compact form where the whole table is wider), each run's labels are its own, the
//! plots' PDFs draw no pdfTeX warning, and option names and minus signs are typeset as
//! such.

use crate::common::{arbiter, read, run, tool_here};
use crate::report::{output_of, runs};
use std::path::Path;

/// The first run's bots: a class of 12 teams, one with a long name, as a course names them.
fn league_bots() -> Vec<String> {
    (1..=12)
        .map(|i| {
            let bot = if i % 3 == 0 { "greedy" } else { "random" };
            match i {
                4 => format!("team_with_a_long_name_4=builtin:{bot}"),
                _ => format!("Team{i:02}=builtin:{bot}"),
            }
        })
        .collect()
}

fn play(args: &[&str], dir: &Path) {
    let (code, _, stderr) = run(arbiter().current_dir(dir).args(args));
    assert_eq!(code, 0, "arbiter {args:?}: {stderr}");
}

/// Every word `pdftotext -bbox` finds on the pages before the one holding `stop`, with
/// its height (the size of its type, in the PDF's units).
fn word_heights(bbox: &str, stop: &str) -> Vec<(String, f64)> {
    let mut words = Vec::new();
    for page in bbox.split("<page ").skip(1) {
        if page.contains(&format!(">{stop}<")) {
            break;
        }
        for line in page.lines().filter(|l| l.contains("<word ")) {
            let field = |name: &str| -> f64 {
                let at = line.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                line[at..].split('"').next().unwrap().parse().unwrap()
            };
            let text = line.split('>').nth(1).unwrap().split('<').next().unwrap();
            words.push((text.to_string(), field("yMax") - field("yMin")));
        }
    }
    words
}

#[test]
fn a_two_column_paper_inputs_two_runs_tables_at_8pt_with_labels_of_their_own_and_no_warning() {
    let have = runs("pdflatex") && runs("pdftotext");
    if !tool_here(
        "a_two_column_paper_inputs_two_runs_tables...",
        have,
        "pdflatex (texlive-latex-base, texlive-latex-recommended) or pdftotext (poppler-utils)",
        "apt-get install -y texlive-latex-base texlive-latex-recommended poppler-utils",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let paper = dir.path();
    // A league (standings, matrices, teams) and a gauntlet (head to head, whose notes
    // name --pairs), each in a folder of its own.
    let mut league = vec!["league", "--game", "gomoku", "-q", "--pairs", "2"];
    league.extend(["--limit-ms", "2000", "--out", "league-a"]);
    let bots = league_bots();
    league.extend(bots.iter().map(String::as_str));
    play(&league, paper);
    play(
        &[
            "gauntlet",
            "--game",
            "gomoku",
            "-q",
            "--pairs",
            "2",
            "--limit-ms",
            "2000",
            "--out",
            "gauntlet-b",
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
            "--baseline",
            "random2=builtin:random",
        ],
        paper,
    );
    let mut tex = String::from(
        "\\documentclass[twocolumn]{article}\n\
         \\usepackage{booktabs,longtable,array,graphicx}\n\
         \\begin{document}\n\
         Paragraphword is the body text of this paper, at the paper's own size.\n\n",
    );
    let mut inputs = 0;
    for run in ["league-a", "gauntlet-b"] {
        let tables = paper.join(run).join("report/tables");
        let mut ids: Vec<String> = std::fs::read_dir(&tables)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        ids.sort();
        for id in ids {
            let text = read(&tables.join(&id));
            let id = id.strip_suffix(".tex").unwrap();
            assert!(
                !text.contains("--pairs") && !text.contains(" -1") && !text.contains("[-"),
                "{run}/{id}: an option name or a minus sign set as hyphens:\n{text}"
            );
            tex.push_str(&format!("\\input{{{run}/report/tables/{id}}}\n"));
            inputs += 1;
        }
    }
    assert!(inputs >= 16, "{inputs} tables");
    assert!(
        read(&paper.join("gauntlet-b/report/tables/head-to-head.tex"))
            .contains("\\texttt{-{}-pairs}"),
        "the notes name --pairs in typewriter type, not with an en dash"
    );
    // The plots after the tables, on pages of their own.
    tex.push_str("\\clearpage\nPlotsfollow\n\n");
    for run in ["league-a", "gauntlet-b"] {
        for plot in ["elo", "points_matrix", "roles", "lengths"] {
            tex.push_str(&format!(
                "\\begin{{figure}}\\centering\\includegraphics[width=\\linewidth]\
                 {{{run}/report/plots/{plot}.pdf}}\\caption{{{}}}\\end{{figure}}\n",
                plot.replace('_', " ")
            ));
        }
    }
    tex.push_str("\\end{document}\n");
    std::fs::write(paper.join("paper.tex"), tex).unwrap();
    let args = ["-interaction=nonstopmode", "-halt-on-error", "paper.tex"];
    output_of("pdflatex", &args, paper);
    output_of("pdflatex", &args, paper);
    let log = read(&paper.join("paper.log"));
    for warning in [
        "multiply defined",
        "PDF inclusion: found PDF version",
        "Overfull \\hbox",
    ] {
        assert!(
            !log.contains(warning),
            "{warning}:\n{}",
            log.lines()
                .filter(|l| l.contains("Warning")
                    || l.contains("warning")
                    || l.contains("Overfull"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    // The size of the tables' type against the body's: a bot's name (in the tables'
    // roman type) at 8 pt or more beside 10 pt, not shrunk with its table to the column.
    let bbox = output_of("pdftotext", &["-bbox", "paper.pdf", "-"], paper);
    let words = word_heights(&bbox, "Plotsfollow");
    let body = words
        .iter()
        .find(|(w, _)| w == "Paragraphword")
        .map(|(_, h)| *h)
        .expect("the body text");
    let names: Vec<&str> = bots
        .iter()
        .map(|b| b.split('=').next().unwrap())
        .chain(["random2"])
        .collect();
    let sizes: Vec<(String, f64)> = words
        .into_iter()
        .filter(|(w, _)| names.contains(&w.as_str()))
        .map(|(w, h)| (w, 10.0 * h / body))
        .collect();
    assert!(
        sizes.len() >= 30,
        "the bots' names in the tables: {sizes:?}"
    );
    let small: Vec<_> = sizes.iter().filter(|(_, pt)| *pt < 7.9).collect();
    assert!(small.is_empty(), "type under 8 pt: {small:?}");
}

#[test]
fn a_label_prefix_given_labels_every_table_and_figure_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("run");
    play(
        &[
            "league",
            "--game",
            "gomoku",
            "-q",
            "--out",
            out.to_str().unwrap(),
            "a=builtin:random",
            "b=builtin:greedy",
        ],
        dir.path(),
    );
    let standings = read(&out.join("report/tables/standings.tex"));
    assert!(
        standings.contains("\\label{tab:arbiter-run-standings}"),
        "the run folder's name by default: {standings}"
    );
    let (code, _, stderr) = run(arbiter()
        .arg("report")
        .arg(&out)
        .args(["--label-prefix", "paper:run-b"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(read(&out.join("report/tables/standings.tex")).contains("tab:paper:run-b-standings"));
    assert!(read(&out.join("report/report.tex")).contains("\\label{fig:paper:run-b-elo}"));
    let (code, _, stderr) = run(arbiter()
        .arg("report")
        .arg(&out)
        .args(["--label-prefix", "run b"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--label-prefix \"run b\" holds ' '"),
        "{stderr}"
    );
}
