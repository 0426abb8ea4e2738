//! index.html: the whole report in one page that needs no network: the tables, the plots
//! inlined as SVG, and the list of games (whose replays it loads from files beside it).
//!
//! The page's style is scoped to its own classes (`arbiter-report`, `ar-...`) so a
//! fragment with its own style and script (the game browser) can sit in it unharmed.

use super::model::Report;
use super::plots::Plot;
use super::tables::{self, Align, Table};
use crate::error::Error;

const STYLE: &str = r#"
.arbiter-report { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b;
  max-width: 1000px; margin: 0 auto; padding: 1rem 1.5rem 3rem; line-height: 1.45; }
.arbiter-report h1 { font-size: 1.6rem; margin: 0.5rem 0; }
.arbiter-report h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ccc;
  padding-bottom: 0.2rem; }
.arbiter-report nav.ar-nav a { margin-right: 1rem; color: #1b1b1b; }
.arbiter-report .ar-scroll { overflow-x: auto; margin: 0.8rem 0; }
.arbiter-report table.ar-table { border-collapse: collapse; font-size: 0.92rem;
  font-variant-numeric: tabular-nums; }
.arbiter-report table.ar-table caption { text-align: left; font-weight: 600; padding: 0.3rem 0; }
.arbiter-report table.ar-table th, .arbiter-report table.ar-table td { padding: 0.25rem 0.6rem;
  border-bottom: 1px solid #ddd; white-space: nowrap; }
.arbiter-report table.ar-table thead th { border-bottom: 2px solid #333; text-align: left; }
.arbiter-report table.ar-table .ar-num { text-align: right; }
.arbiter-report table.ar-table tbody tr:hover { background: #f3f3f3; }
.arbiter-report figure.ar-plot { margin: 1rem 0; }
.arbiter-report figure.ar-plot svg { max-width: 100%; height: auto; display: block; }
.arbiter-report figure.ar-plot figcaption { font-size: 0.9rem; color: #444; }
.arbiter-report .ar-note { font-size: 0.9rem; color: #444; }
@media print { .arbiter-report nav.ar-nav { display: none; } }
"#;

/// index.html with `plots` inlined, in the two parts that go before and after the game
/// browser of every game ([`super::replay::GamesHtml`]): a page of 100,000 games is
/// written with its list of games streamed between them, never copied into one string.
pub(crate) fn render(
    report: &Report,
    sections: &[tables::Section],
    plots: &[Plot],
) -> Result<(String, String), Error> {
    let title = tables::title(report);
    let mut body = String::new();
    for section in sections {
        body.push_str(&format!(
            "<section id=\"{}\">\n<h2>{}</h2>\n",
            section.id,
            escape(&section.title)
        ));
        for line in &section.text {
            body.push_str(&format!("<p>{}</p>\n", escape(line)));
        }
        for table in &section.tables {
            body.push_str(&table_html(table));
        }
        for line in &section.notes {
            body.push_str(&format!("<p class=\"ar-note\">{}</p>\n", escape(line)));
        }
        if let Some(plot) = section
            .plot
            .and_then(|file| plots.iter().find(|p| p.file == file))
        {
            body.push_str(&format!(
                "<figure class=\"ar-plot\">\n{}\n<figcaption>{}</figcaption>\n</figure>\n",
                inline_svg(&plot.svg),
                escape(plot.title())
            ));
        }
        body.push_str("</section>\n");
    }
    // The sections per team stay out of the bar (thirty teams would crowd it); the Teams
    // section, which the bar links, lists every team.
    let mut nav: Vec<String> = sections
        .iter()
        .filter(|s| !s.id.starts_with("team-"))
        .map(|s| format!("<a href=\"#{}\">{}</a>", s.id, escape(&s.title)))
        .collect();
    nav.push("<a href=\"#games\">Games</a>".into());
    let before = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <main class=\"arbiter-report\">\n<header>\n<h1>{title}</h1>\n\
         <nav class=\"ar-nav\">{nav}</nav>\n</header>\n{body}",
        title = escape(&title),
        nav = nav.join(" "),
    );
    Ok((before, "</main>\n</body>\n</html>\n".to_string()))
}

fn table_html(table: &Table) -> String {
    let class = |a: &Align| match a {
        Align::Left => "",
        Align::Right => " class=\"ar-num\"",
    };
    let mut out = format!(
        "<div class=\"ar-scroll\">\n<table class=\"ar-table\" id=\"table-{}\">\n\
         <caption>{}</caption>\n<thead><tr>",
        table.id,
        escape(&table.caption)
    );
    for (name, align) in &table.columns {
        out.push_str(&format!("<th{}>{}</th>", class(align), escape(name)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &table.rows {
        out.push_str("<tr>");
        for (cell, (_, align)) in row.iter().zip(&table.columns) {
            out.push_str(&format!("<td{}>{}</td>", class(align), escape(cell)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n</div>\n");
    out
}

/// An SVG file's text as an element of the page: without an XML declaration.
fn inline_svg(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(start) => svg[start..].trim_end(),
        None => svg,
    }
}

/// Text as HTML shows it as written.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}
