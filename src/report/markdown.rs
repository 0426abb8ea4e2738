//! report.md: the report as Markdown tables that render on a Git forge, with the plots as
//! images beside it (`plots/*.svg`).

use super::model::Report;
use super::plots;
use super::tables::{self, Align, Table};

/// The whole of report.md.
pub(crate) fn render(report: &Report, sections: &[tables::Section]) -> String {
    // Blocks (headings, paragraphs, tables, images) separated by one blank line.
    let mut blocks = vec![format!("# {}", escape(&tables::title(report)))];
    for section in sections {
        blocks.push(format!("## {}", escape(&section.title)));
        blocks.extend(section.text.iter().map(|line| escape(line)));
        blocks.extend(section.tables.iter().map(table_text));
        blocks.extend(section.notes.iter().map(|line| escape(line)));
        if let Some(plot) = section.plot {
            blocks.push(format!("![{}](plots/{plot})", escape(plots::title(plot))));
        }
    }
    let mut out = blocks.join("\n\n");
    out.push('\n');
    out
}

fn table_text(table: &Table) -> String {
    let mut out = String::new();
    let header: Vec<String> = table.columns.iter().map(|(c, _)| escape(c)).collect();
    out.push_str(&format!("| {} |\n", header.join(" | ")));
    let rule: Vec<&str> = table
        .columns
        .iter()
        .map(|(_, a)| match a {
            Align::Left => ":---",
            Align::Right => "---:",
        })
        .collect();
    out.push_str(&format!("| {} |", rule.join(" | ")));
    for row in &table.rows {
        let cells: Vec<String> = row.iter().map(|c| escape(c)).collect();
        out.push_str(&format!("\n| {} |", cells.join(" | ")));
    }
    out
}

/// Text that Markdown shows as written, the report's own and what came from a bot or a
/// student alike: [`crate::untrusted::text::markdown`], which leaves no HTML, link, image
/// or autolink live and keeps a table's columns.
pub(crate) fn escape(text: &str) -> String {
    crate::untrusted::text::markdown(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_a_name_is_escaped_so_a_table_keeps_its_columns() {
        assert_eq!(escape("a|b_c*"), "a\\|b\\_c\\*");
        assert_eq!(escape("<b>`x`"), "&lt;b&gt;\\`x\\`");
        assert_eq!(escape("[+12, +30]"), "[+12, +30]");
    }

    #[test]
    fn a_bot_named_like_a_link_and_an_image_gives_report_md_neither() {
        let table = Table {
            id: "t".into(),
            caption: String::new(),
            columns: vec![("bot".into(), Align::Left)],
            rows: vec![vec![
                "![x](https://evil.example/t.png) [a](javascript:alert(1))".into(),
            ]],
        };
        let text = table_text(&table);
        assert!(!text.contains("](") && !text.contains("://"), "{text}");
        assert!(text.contains("[a]\\(javascript:alert(1))"), "{text}");
    }
}
