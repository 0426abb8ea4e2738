//! The report of a tournament folder: report.md and report.tex against golden files made
//! from fixed journals (tests/data/report/), every plot a well-formed SVG holding its marks,
//! index.html self-contained, clear errors for a folder that is not a tournament's, and the
//! report written at the end of every tournament command.
//!
//! To regenerate the golden files after a deliberate change of the report:
//! `ARBITER_UPDATE_GOLDEN=1 cargo test --test integration report::`, then review the diff.

use crate::common::{arbiter, csv_rows, read, run, tool_here};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/report")
        .join(name)
}

/// Writes the report of the fixed journal `name` into a fresh folder.
fn report_of(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(arbiter()
        .arg("report")
        .arg(data(name))
        .arg("--out")
        .arg(&out));
    assert_eq!(code, 0, "arbiter report {name}: {stderr}");
    let index = out.join("index.html");
    assert_eq!(
        stdout.trim(),
        format!("report: {}", index.display()),
        "the command ends with where to open the report"
    );
    (dir, out)
}

fn check_golden(name: &str, file: &str, actual: &str) {
    // Not `.md`: the repository's Markdown is checked for links, and a golden report.md
    // links to plots that are not kept beside it.
    let golden = data(name).join("expected").join(format!("{file}.golden"));
    if std::env::var_os("ARBITER_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
        std::fs::write(&golden, actual).unwrap();
        return;
    }
    let expected = read(&golden);
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{file} of {name} differs from {} from line {}:\n  expected: {:?}\n  actual:   {:?}\n\
             (ARBITER_UPDATE_GOLDEN=1 rewrites the golden files)",
            golden.display(),
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

#[test]
fn report_md_and_tex_of_a_league_match_their_golden_files() {
    let (_dir, out) = report_of("league");
    check_golden("league", "report.md", &read(&out.join("report.md")));
    check_golden("league", "report.tex", &read(&out.join("report.tex")));
    check_golden(
        "league",
        "standings.tex",
        &read(&out.join("tables/standings.tex")),
    );
}

#[test]
fn report_md_and_tex_of_an_sprt_match_their_golden_files() {
    let (_dir, out) = report_of("sprt");
    check_golden("sprt", "report.md", &read(&out.join("report.md")));
    check_golden("sprt", "report.tex", &read(&out.join("report.tex")));
}

#[test]
fn the_report_agrees_with_the_csv_tables_of_the_same_journal() {
    let (_dir, out) = report_of("league");
    let tables = tempfile::tempdir().unwrap();
    std::fs::copy(
        data("league").join("games.jsonl"),
        tables.path().join("games.jsonl"),
    )
    .unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(tables.path()));
    assert_eq!(code, 0, "{stderr}");
    let md = read(&out.join("report.md"));
    for row in csv_rows(&tables.path().join("standings.csv")) {
        let bot = row["bot"].replace('_', "\\_");
        let line = md
            .lines()
            .find(|l| l.starts_with(&format!("| {} | {bot} |", row["rank"])))
            .unwrap_or_else(|| panic!("no standings row for {bot} in report.md:\n{md}"));
        let cells: Vec<&str> = line.split(" | ").collect();
        assert_eq!(
            cells[2..7],
            [
                row["games"].as_str(),
                &row["wins"],
                &row["losses"],
                &row["ties"],
                &row["points"]
            ],
            "{line}"
        );
    }
    // `table` rewrote the folder's own report too, from the same journal.
    assert_eq!(
        read(&tables.path().join("report/report.md")),
        md,
        "arbiter table and arbiter report write the same report.md"
    );
}

/// The elements named `tag` of an SVG document, as attribute maps, with their text.
fn elements(svg: &roxmltree::Document, tag: &str) -> Vec<(BTreeMap<String, String>, String)> {
    svg.descendants()
        .filter(|n| n.has_tag_name(tag))
        .map(|n| {
            let attributes = n
                .attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect();
            (attributes, n.text().unwrap_or_default().trim().to_string())
        })
        .collect()
}

fn parse_plot(out: &Path, file: &str) -> String {
    let text = read(&out.join("plots").join(file));
    let doc = roxmltree::Document::parse(&text)
        .unwrap_or_else(|e| panic!("{file} is not well-formed XML: {e}"));
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg", "{file}");
    let width: u32 = root.attribute("width").unwrap().parse().unwrap();
    assert!(
        (300..=800).contains(&width),
        "{file}: {width} px wide is not sized for a report page"
    );
    // Generic families only: no font file is needed to read it.
    for (attributes, _) in elements(&doc, "text") {
        assert_eq!(attributes["font-family"], "sans-serif", "{file}");
    }
    text
}

fn texts(doc: &roxmltree::Document) -> Vec<String> {
    elements(doc, "text").into_iter().map(|(_, t)| t).collect()
}

#[test]
fn every_plot_is_an_svg_holding_a_mark_and_a_label_per_bot() {
    let (_dir, out) = report_of("league");
    let bots = ["random", "greedy", "alpha_beta"];

    let text = parse_plot(&out, "elo.svg");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let dots = elements(&doc, "circle")
        .into_iter()
        .filter(|(a, _)| a["fill"] == "#000000")
        .count();
    assert_eq!(dots, bots.len(), "one Elo dot per bot");
    let labels = texts(&doc);
    for bot in bots {
        assert!(labels.iter().any(|l| l == bot), "elo.svg names {bot}");
    }
    // The estimates printed on the plot are the standings'.
    for elo in ["+167", "+35", "-201"] {
        assert!(labels.iter().any(|l| l == elo), "elo.svg shows {elo}");
    }

    let text = parse_plot(&out, "points_matrix.svg");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let cells: Vec<_> = elements(&doc, "rect")
        .into_iter()
        .filter(|(a, _)| a["fill"] != "#FFFFFF" && a["fill"] != "none")
        .collect();
    assert_eq!(cells.len(), 6, "a heat-map cell per ordered pair of bots");
    let labels = texts(&doc);
    for bot in bots {
        assert!(labels.iter().any(|l| l == bot), "the matrix names {bot}");
    }
    let mut values: Vec<&str> = labels
        .iter()
        .filter(|l| l.parse::<f64>().is_ok())
        .map(String::as_str)
        .collect();
    values.sort();
    assert_eq!(values, ["0", "2", "3", "5", "6", "8"], "each cell's points");

    let text = parse_plot(&out, "roles.svg");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let rects = elements(&doc, "rect");
    let filled = rects.iter().filter(|(a, _)| a["fill"] == "#000000").count();
    let hollow = rects
        .iter()
        .filter(|(a, _)| a["fill"] == "none" && a["stroke"] == "#000000")
        .count();
    // One bar per bot and role, and one of each in the legend.
    assert_eq!((filled, hollow), (bots.len() + 1, bots.len() + 1));
    let labels = texts(&doc);
    for label in ["white", "black", "75% of 4", "25% of 4"] {
        assert!(labels.iter().any(|l| l == label), "roles.svg shows {label}");
    }

    let text = parse_plot(&out, "lengths.svg");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let labels = texts(&doc);
    for ending in [
        "five_in_row: 8 games",
        "timeout: 3 games",
        "no_window_left: 1 game,",
    ] {
        assert!(
            labels.iter().any(|l| l.starts_with(ending)),
            "lengths.svg has a panel `{ending}`: {labels:?}"
        );
    }
    assert!(
        !out.join("plots/sprt.svg").exists(),
        "a league has no SPRT plot"
    );
}

#[test]
fn the_sprt_plot_draws_the_llr_after_each_pair_between_its_bounds() {
    let (_dir, out) = report_of("sprt");
    let text = parse_plot(&out, "sprt.svg");
    let doc = roxmltree::Document::parse(&text).unwrap();
    let dots = elements(&doc, "circle").len();
    assert_eq!(dots, 9, "a dot per counted pair (sprt: 9 pairs)");
    let labels = texts(&doc);
    for bound in ["accept H1 (+2.94)", "accept H0 (-2.94)"] {
        assert!(labels.iter().any(|l| l == bound), "{bound}: {labels:?}");
    }
    // The LLR line: the origin and one vertex per pair.
    let longest = elements(&doc, "polyline")
        .into_iter()
        .map(|(a, _)| a["points"].split_whitespace().count())
        .max()
        .unwrap();
    assert_eq!(longest, 10);
}

#[test]
fn index_html_is_one_self_contained_page_with_every_table_plot_and_game() {
    let (_dir, out) = report_of("sprt");
    let html = read(&out.join("index.html"));
    for id in [
        "standings",
        "matrix",
        "roles",
        "endings",
        "sprt",
        "settings",
    ] {
        assert!(
            html.contains(&format!("<section id=\"{id}\">")),
            "index.html has the section {id}"
        );
    }
    assert_eq!(
        html.matches("<svg").count(),
        5,
        "the five plots are inlined"
    );
    // Nothing is fetched: no external script, style, image or font.
    for fetch in ["<script src", "<link", "<img", "url(", "@import"] {
        assert!(!html.contains(fetch), "index.html holds `{fetch}`");
    }
    let addresses: Vec<&str> = html
        .match_indices("http")
        .map(|(i, _)| &html[i..(i + 30).min(html.len())])
        .filter(|a| !a.starts_with("http://www.w3.org/2000/svg"))
        .collect();
    assert!(
        addresses.is_empty(),
        "addresses in index.html: {addresses:?}"
    );
    // The game browser: an entry per journaled game in its index.
    let games = &html[html
        .find("<section id=\"games\"")
        .expect("index.html has the game browser")..];
    let start = games
        .find("id=\"arb-games-index\">")
        .expect("the games index")
        + 21;
    let end = start + games[start..].find("</script>").unwrap();
    let index: serde_json::Value = serde_json::from_str(&games[start..end]).unwrap();
    let journaled = read(&data("sprt").join("games.jsonl")).lines().count() - 1;
    assert_eq!(
        index["games"].as_array().map(Vec::len),
        Some(journaled),
        "an entry per game"
    );
}

#[test]
fn a_folder_that_is_not_a_tournament_is_refused_naming_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere");
    let (code, _, stderr) = run(arbiter().arg("report").arg(&missing));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&missing.display().to_string()) && stderr.contains("no such folder"),
        "{stderr}"
    );

    let (code, _, stderr) = run(arbiter().arg("report").arg(dir.path()));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("holds no games.jsonl"), "{stderr}");
    assert!(!dir.path().join("report").exists(), "nothing is written");

    std::fs::write(dir.path().join("games.jsonl"), "not a journal\n").unwrap();
    let (code, _, stderr) = run(arbiter().arg("report").arg(dir.path()));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("games.jsonl:1"),
        "names the file and line: {stderr}"
    );
}

#[test]
fn a_league_ends_with_its_report_written_and_its_path_printed_even_when_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "--quiet", "--limit-ms", "500"])
        .arg("--out")
        .arg(&out)
        .args(["builtin:random", "builtin:greedy"]));
    assert_eq!(code, 0, "{stderr}");
    let index = out.join("report/index.html");
    assert_eq!(
        stdout.lines().last(),
        Some(format!("report: {}", index.display()).as_str()),
        "{stdout}"
    );
    for file in ["index.html", "report.md", "report.tex", "plots/elo.svg"] {
        assert!(out.join("report").join(file).is_file(), "{file} written");
    }
}

#[test]
fn an_sprt_in_json_keeps_stdout_to_its_json_line_and_says_where_the_report_is_on_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = run(arbiter()
        .args(["sprt", "--game", "gomoku", "--json", "--limit-ms", "500"])
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
        ])
        .args(["--elo0", "0", "--elo1", "100", "--max-pairs", "2"])
        .arg("--out")
        .arg(&out));
    assert!([0, 1, 3].contains(&code), "{stderr}");
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    serde_json::from_str::<serde_json::Value>(stdout.trim()).expect("one JSON line");
    let index = out.join("report/index.html");
    assert!(
        stderr.contains(&format!("report: {}", index.display())),
        "{stderr}"
    );
    // The report recounts the test from the journal alone, as the run counted it.
    let history = csv_rows(&out.join("sprt.csv"));
    let last = history.last().expect("a pair was counted");
    let md = read(&out.join("report/report.md"));
    let llr_line = md
        .lines()
        .find(|l| l.starts_with("| LLR |"))
        .unwrap_or_else(|| panic!("no LLR in report.md:\n{md}"));
    let reported: f64 = llr_line.trim_matches(|c| c == '|' || c == ' ')["LLR |".len()..]
        .trim()
        .parse()
        .unwrap();
    let counted: f64 = last["llr"].parse().unwrap();
    assert!(
        (reported - counted).abs() < 1e-3,
        "{llr_line} against sprt.csv {counted}"
    );
    assert!(
        md.contains(&format!("| pairs | {} of at most 2 |", history.len())),
        "{md}"
    );
}

#[test]
fn a_journal_without_games_still_gets_a_whole_report() {
    for name in ["league", "sprt"] {
        let dir = tempfile::tempdir().unwrap();
        let header = read(&data(name).join("games.jsonl"))
            .lines()
            .next()
            .unwrap()
            .to_string();
        std::fs::write(dir.path().join("games.jsonl"), header + "\n").unwrap();
        let (code, _, stderr) = run(arbiter().arg("report").arg(dir.path()));
        assert_eq!(code, 0, "{name}: {stderr}");
        let md = read(&dir.path().join("report/report.md"));
        assert!(md.contains("0 games played"), "{md}");
        for plot in ["elo.svg", "points_matrix.svg", "roles.svg", "lengths.svg"] {
            parse_plot(&dir.path().join("report"), plot);
        }
        if name == "sprt" {
            parse_plot(&dir.path().join("report"), "sprt.svg");
            assert!(md.contains("| pairs | 0 of at most 12 |"), "{md}");
        }
    }
}

#[test]
fn bot_names_with_markup_are_shown_as_written_in_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tournaments.toml");
    std::fs::write(
        &config,
        r#"
default = "t"
[tournaments.t]
game = "gomoku"
limit_ms = 500
out = "league"
bots = [
    { name = "<b>&|x_1", spec = "builtin:random" },
    { name = "50%{#}", spec = "builtin:greedy" },
]
"#,
    )
    .unwrap();
    let (code, _, stderr) = run(arbiter().args(["run", "--quiet", "--config"]).arg(&config));
    assert_eq!(code, 0, "{stderr}");
    let report = dir.path().join("league/report");
    let md = read(&report.join("report.md"));
    assert!(md.contains("| &lt;b&gt;&amp;\\|x\\_1 |"), "{md}");
    let tex = read(&report.join("tables/standings.tex"));
    assert!(!tex.contains("<b>&|x_1"), "raw name in standings.tex");
    assert!(
        tex.contains("$<$b$>$\\&\\textbar{}x\\_1") && tex.contains("50\\%\\{\\#\\}"),
        "{tex}"
    );
    let html = read(&report.join("index.html"));
    assert!(html.contains("&lt;b&gt;&amp;|x_1"), "escaped in index.html");
    assert!(!html.contains("<b>&"), "raw name in index.html");
    for plot in ["elo.svg", "points_matrix.svg", "roles.svg"] {
        let text = parse_plot(&report, plot);
        let doc = roxmltree::Document::parse(&text).unwrap();
        assert!(
            texts(&doc).iter().any(|t| t == "<b>&|x_1"),
            "{plot} names the bot as written"
        );
    }
}

#[test]
fn a_runs_own_report_replays_every_game_beside_its_page_as_arbiter_report_does() {
    let dir = tempfile::tempdir().unwrap();
    let league = dir.path().join("league");
    // 140 games: three blocks of replays, the last one partial.
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "asalto", "--quiet", "--pairs", "70"])
        .args(["--round-limit", "20", "--out"])
        .arg(&league)
        .args(["builtin:random", "builtin:greedy"]));
    assert_eq!(code, 0, "{stderr}");
    let own = league.join("report");
    let replays = own.join("replays");
    let mut blocks: Vec<String> = std::fs::read_dir(&replays)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    blocks.sort();
    assert_eq!(blocks, ["000000.js", "000001.js", "000002.js"]);
    let html = read(&own.join("index.html"));
    assert!(
        !html.contains("arbiter report</code>"),
        "the run's page has every game's replay"
    );
    assert!(
        html.contains("\"replays\":\"replays/\""),
        "the page loads them"
    );
    // `arbiter report` writes the same files: the run's report is made the same way.
    let other = dir.path().join("other");
    let (code, _, stderr) = run(arbiter()
        .arg("report")
        .arg(&league)
        .arg("--out")
        .arg(&other));
    assert_eq!(code, 0, "{stderr}");
    let (own, other) = (
        crate::common::folder_files(&own),
        crate::common::folder_files(&other),
    );
    crate::common::assert_same_files(&own, &other, "the run's report and arbiter report's");
}

/// Every file of the tournament folder `dir` is the same as what `arbiter table` rebuilds
/// from its journal alone, in a copy of it: the tables and the report a run writes from
/// what it counted, listed and replayed as it played are the journal's.
fn assert_run_outputs_are_the_journals(dir: &Path) {
    let copy = tempfile::tempdir().unwrap();
    // Of the same name: report.tex's labels are named after the run's folder.
    let rebuilt = copy.path().join(dir.file_name().unwrap());
    std::fs::create_dir(&rebuilt).unwrap();
    std::fs::copy(dir.join("games.jsonl"), rebuilt.join("games.jsonl")).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&rebuilt));
    assert_eq!(code, 0, "arbiter table: {stderr}");
    let (mut ran, rebuilt) = (
        crate::common::folder_files(dir),
        crate::common::folder_files(&rebuilt),
    );
    // The run's lock, which only a run takes.
    ran.remove(Path::new("games.lock"));
    crate::common::assert_same_files(&ran, &rebuilt, "the run's folder and arbiter table's");
}

/// The ids of the games the page lists, in order.
fn listed_games(report: &Path) -> Vec<u64> {
    let html = read(&report.join("index.html"));
    let start = html.find("id=\"arb-games-index\">").expect("the index") + 21;
    let end = start + html[start..].find("</script>").expect("its end");
    let index: serde_json::Value = serde_json::from_str(&html[start..end]).expect("JSON");
    index["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|row| row[0].as_u64().expect("an id"))
        .collect()
}

#[test]
fn a_runs_tables_and_report_are_those_its_journal_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    for jobs in ["1", "2"] {
        let league = dir.path().join(format!("league-{jobs}"));
        let (code, _, stderr) = run(arbiter()
            .args([
                "league", "--game", "asalto", "--quiet", "--pairs", "35", "-j", jobs,
            ])
            .args(["--round-limit", "30", "--out"])
            .arg(&league)
            .args(["builtin:random", "builtin:greedy", "other=builtin:random"]));
        assert_eq!(code, 0, "{stderr}");
        // 210 games: four blocks of replays, made by the run's game threads.
        assert_eq!(listed_games(&league.join("report")).len(), 210);
        assert_run_outputs_are_the_journals(&league);
    }
}

/// A resumed run did not play the journal's first games, so its report replays the
/// journal; it still lists and replays every game, as the journal has them.
#[test]
fn a_resumed_runs_report_replays_the_games_it_did_not_play() {
    let dir = tempfile::tempdir().unwrap();
    let league = dir.path().join("league");
    let command = || {
        let (code, _, stderr) = run(arbiter()
            .args(["league", "--game", "asalto", "--quiet", "--pairs", "50"])
            .args(["--round-limit", "30", "--out"])
            .arg(&league)
            .args(["builtin:random", "builtin:greedy"]));
        assert_eq!(code, 0, "{stderr}");
    };
    command();
    let journal = league.join("games.jsonl");
    let text = read(&journal);
    // The header and the first 70 games: a run stopped part way.
    let kept: Vec<&str> = text.lines().take(71).collect();
    std::fs::write(&journal, kept.join("\n") + "\n").unwrap();
    std::fs::remove_dir_all(league.join("report")).unwrap();
    command();
    let ids = listed_games(&league.join("report"));
    assert_eq!(ids.len(), 100);
    assert_run_outputs_are_the_journals(&league);
}

/// Whether `program --version` runs.
pub(crate) fn runs(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What `program args` prints, asserting it succeeds.
pub(crate) fn output_of(program: &str, args: &[&str], dir: &Path) -> String {
    let out = std::process::Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{program} {args:?} in {}: {text}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn every_plot_is_also_a_vector_pdf_with_its_font_embedded_and_a_png_of_twice_its_size() {
    let (_dir, out) = report_of("league");
    let have = runs("pdffonts");
    if !tool_here(
        "every_plot_is_also_a_vector_pdf...",
        have,
        "pdffonts (poppler-utils)",
        "apt-get install -y poppler-utils",
    ) {
        return;
    }
    for plot in ["elo", "points_matrix", "roles", "lengths"] {
        let plots = out.join("plots");
        let pdf = std::fs::read(plots.join(format!("{plot}.pdf"))).unwrap();
        assert!(pdf.starts_with(b"%PDF-"), "{plot}.pdf");
        // Its text is text, in a font inside the file: no font is looked up by a viewer.
        let fonts = output_of("pdffonts", &[&format!("{plot}.pdf")], &plots);
        let embedded: Vec<&str> = fonts.lines().skip(2).collect();
        assert!(!embedded.is_empty(), "{plot}.pdf holds no font:\n{fonts}");
        for line in embedded {
            let cells: Vec<&str> = line.split_whitespace().collect();
            assert!(
                cells.len() > 4 && cells[cells.len() - 5] == "yes",
                "{plot}.pdf: a font not embedded: {line}"
            );
        }
        let svg = parse_plot(&out, &format!("{plot}.svg"));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let size = |a: &str| -> u32 { doc.root_element().attribute(a).unwrap().parse().unwrap() };
        let png = std::fs::File::open(plots.join(format!("{plot}.png"))).unwrap();
        let info = png::Decoder::new(std::io::BufReader::new(png))
            .read_info()
            .unwrap()
            .info()
            .clone();
        assert_eq!(
            (info.width, info.height),
            (2 * size("width"), 2 * size("height")),
            "{plot}.png is drawn from {plot}.svg at twice its size"
        );
    }
}

#[test]
fn report_tex_compiles_with_pdflatex_its_tables_in_files_of_their_own_long_ones_across_pages() {
    let have = runs("pdflatex") && runs("pdfinfo");
    if !tool_here(
        "report_tex_compiles_with_pdflatex...",
        have,
        "pdflatex (texlive-latex-base, texlive-latex-recommended) or pdfinfo (poppler-utils)",
        "apt-get install -y texlive-latex-base texlive-latex-recommended poppler-utils",
    ) {
        return;
    }
    // 27 teams with long names: tables of more rows than a float holds, and long text.
    let dir = tempfile::tempdir().unwrap();
    let league = dir.path().join("league");
    let bots: Vec<String> = (1..=27)
        .map(|i| {
            let bot = if i % 3 == 0 { "greedy" } else { "random" };
            format!("team_with_a_rather_long_name_{i}=builtin:{bot}")
        })
        .collect();
    let (code, _, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "gomoku",
            "-q",
            "--limit-ms",
            "2000",
            "--out",
        ])
        .arg(&league)
        .args(&bots));
    assert_eq!(code, 0, "{stderr}");
    let report = league.join("report");
    let tex = read(&report.join("report.tex"));
    assert!(tex.contains("\\documentclass") && tex.contains("\\end{document}"));
    let mut tables = 0;
    for entry in std::fs::read_dir(report.join("tables")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let id = name.strip_suffix(".tex").expect("a .tex file");
        assert!(
            tex.contains(&format!("\\input{{tables/{id}}}")),
            "report.tex inputs tables/{name}"
        );
        tables += 1;
    }
    assert!(tables >= 8, "{tables} tables");
    assert!(
        read(&report.join("tables/bots.tex")).contains("\\begin{longtable}"),
        "27 rows break across pages"
    );
    for plot in ["elo", "points_matrix", "roles", "lengths"] {
        assert!(tex.contains(&format!("{{plots/{plot}.pdf}}")), "{plot}");
    }
    // Twice, as a paper is: the second run resolves the longtables' widths.
    let args = ["-interaction=nonstopmode", "-halt-on-error", "report.tex"];
    output_of("pdflatex", &args, &report);
    output_of("pdflatex", &args, &report);
    let info = output_of("pdfinfo", &["report.pdf"], &report);
    let pages: u32 = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .expect("pdfinfo names the pages")
        .trim()
        .parse()
        .unwrap();
    assert!(pages >= 6, "{pages} pages:\n{info}");
    let log = read(&report.join("report.log"));
    assert!(
        !log.contains("Overfull \\hbox"),
        "a table or a plot sticks out of the line:\n{}",
        log.lines()
            .filter(|l| l.contains("Overfull"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let text = output_of("pdftotext", &["report.pdf", "-"], &report);
    assert!(
        text.contains("(continued)"),
        "a long table goes on over a page"
    );
    assert!(
        text.contains("team_with_a_rather_long_name_27"),
        "the names as written"
    );

    // An SPRT's report opens with its verdict; its test's long sentences wrap.
    let (_sprt_dir, sprt) = report_of("sprt");
    assert!(
        read(&sprt.join("tables/sprt.tex")).contains("\\raggedright\\arraybackslash}p{"),
        "the hypotheses wrap in their column"
    );
    output_of("pdflatex", &args, &sprt);
    let log = read(&sprt.join("report.log"));
    assert!(!log.contains("Overfull \\hbox"), "{log}");
    let text = output_of("pdftotext", &["report.pdf", "-"], &sprt);
    let at = |words: &str| {
        text.find(words)
            .unwrap_or_else(|| panic!("{words}: {text}"))
    };
    assert!(
        at("Verdict: H1 accepted") < at("Standings"),
        "the verdict comes first: {text}"
    );
}
