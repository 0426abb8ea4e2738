//! The report's plots as SVG: Elo with its intervals, the points matrix as a heat map, win
//! rates by role, game lengths by ending and, for a sequential test, the LLR against pairs.
//!
//! Every plot reads in black and white (grey levels, filled against hollow bars, dashed
//! bounds, every value labelled), is sized for a report page (640 px wide), and names only
//! the generic `sans-serif` family, which every viewer has: no font file is needed to draw
//! or to read them.

use super::model::Report;
use crate::error::Error;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Plot width in pixels: a report page's text width at 96 dpi, a little over.
pub(crate) const WIDTH: u32 = 640;
const FONT: &str = "sans-serif";
/// Room right of a plotting area: half of its last tick's label (`+1000`) stands out
/// beyond its edge.
const RIGHT: u32 = 28;
/// Grey of the second role's bars and of secondary lines.
const GREY: RGBColor = RGBColor(150, 150, 150);

/// One plot: its file name in `plots/` and its SVG text.
pub(crate) struct Plot {
    pub file: &'static str,
    pub svg: String,
}

impl Plot {
    /// What it shows, for a caption or an `alt` text.
    pub(crate) fn title(&self) -> &'static str {
        title(self.file)
    }
}

/// What the plot `file` shows.
pub(crate) fn title(file: &str) -> &'static str {
    match file {
        "elo.svg" => "Elo ratings with 95% intervals",
        "points_matrix.svg" => "Points scored by the row's bot against the column's",
        "roles.svg" => "Win rate by role",
        "lengths.svg" => "Game lengths by ending",
        "sprt.svg" => "SPRT: log-likelihood ratio after each pair",
        _ => "plot",
    }
}

/// Every plot of the report, in the order the report shows them.
pub(crate) fn all(report: &Report) -> Result<Vec<Plot>, Error> {
    let mut plots = vec![
        Plot {
            file: "elo.svg",
            svg: elo(report)?,
        },
        Plot {
            file: "points_matrix.svg",
            svg: points_matrix(report)?,
        },
        Plot {
            file: "roles.svg",
            svg: roles(report)?,
        },
        Plot {
            file: "lengths.svg",
            svg: lengths(report)?,
        },
    ];
    if let Some(svg) = sprt(report)? {
        plots.push(Plot {
            file: "sprt.svg",
            svg,
        });
    }
    Ok(plots)
}

fn failed(plot: &str) -> impl Fn(String) -> Error + '_ {
    move |message| Error::Plot {
        plot: plot.to_string(),
        message,
    }
}

/// Draws into an SVG of `height` px with `draw`, which reports plotters' errors as text.
fn svg(
    plot: &str,
    (width, height): (u32, u32),
    draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), String>,
) -> Result<String, Error> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (width, height)).into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| e.to_string())
            .map_err(failed(plot))?;
        draw(&root).map_err(failed(plot))?;
        root.present()
            .map_err(|e| e.to_string())
            .map_err(failed(plot))?;
    }
    Ok(text)
}

/// `size` px text: plotters' SVG backend writes a font size 1.24 times smaller than asked.
fn font(size: u32) -> FontDesc<'static> {
    (FONT, size as f64 * 1.24).into_font()
}

fn text_style(size: u32) -> TextStyle<'static> {
    font(size).color(&BLACK)
}

/// Label area wide enough for the longest of `names` (the SVG font's width is estimated
/// at 0.6 em a character).
fn label_width(names: &[String], size: u32) -> u32 {
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as u32;
    (longest * size * 6 / 10 + 12).clamp(40, WIDTH / 3)
}

/// Height of a plot with one row per bot.
fn rows_height(rows: usize) -> u32 {
    (90 + 34 * rows as u32).clamp(240, 1000)
}

/// `[low, high]` padded by a tenth, never empty.
fn padded(low: f64, high: f64) -> (f64, f64) {
    let (low, high) = if high - low < 1e-9 {
        (low - 1.0, high + 1.0)
    } else {
        (low, high)
    };
    let pad = (high - low) / 10.0;
    (low - pad, high + pad)
}

/// Writes `label` to the left of `at`, the plotting area's left edge level with a row.
fn row_label<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    label: &str,
) -> Result<(), String> {
    let style = text_style(13).pos(Pos::new(HPos::Right, VPos::Center));
    root.draw(&Text::new(label.to_string(), (at.0 - 6, at.1), style))
        .map_err(|e| e.to_string())
}

/// Elo per bot, best on top, a dot at the estimate and a bar over its 95% interval; an
/// interval end the data cannot bound runs to the plot's edge and ends in an arrow head.
pub(crate) fn elo(report: &Report) -> Result<String, Error> {
    let rows = &report.table.rows;
    let names: Vec<String> = rows.iter().map(|s| s.bot.clone()).collect();
    let finite = rows
        .iter()
        .flat_map(|s| [s.elo, s.elo_low, s.elo_high])
        .filter(|x| x.is_finite());
    let (low, high) = finite.fold((0.0f64, 0.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (low, high) = padded(low, high);
    svg("elo.svg", (WIDTH, rows_height(rows.len())), |root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = ChartBuilder::on(root)
            .caption("Elo (mean 0) with 95% intervals", text_style(16))
            .margin(12)
            .margin_right(RIGHT)
            .x_label_area_size(36)
            .y_label_area_size(label_width(&names, 13))
            .build_cartesian_2d(low..high, 0.0..rows.len().max(1) as f64)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc("Elo")
            .x_label_formatter(&|x| super::numbers::fixed(*x, 0, true))
            .label_style(text_style(12))
            .light_line_style(TRANSPARENT)
            .draw()
            .map_err(e)?;
        // Zero: the league's mean.
        chart
            .draw_series(DashedLineSeries::new(
                [(0.0, 0.0), (0.0, rows.len() as f64)],
                4,
                4,
                GREY.stroke_width(1),
            ))
            .map_err(e)?;
        let top = rows.len() as f64;
        for (i, s) in rows.iter().enumerate() {
            let y = top - i as f64 - 0.5;
            let clamp = |x: f64| x.clamp(low, high);
            chart
                .draw_series([ErrorBar::new_horizontal(
                    y,
                    clamp(s.elo_low),
                    clamp(s.elo),
                    clamp(s.elo_high),
                    BLACK.stroke_width(2),
                    10,
                )])
                .map_err(e)?;
            for (end, edge, dir) in [(s.elo_low, low, 1.0), (s.elo_high, high, -1.0)] {
                if !end.is_finite() {
                    let step = (high - low) / 60.0;
                    chart
                        .draw_series([PathElement::new(
                            vec![
                                (edge + dir * step, y + 0.15),
                                (edge, y),
                                (edge + dir * step, y - 0.15),
                            ],
                            BLACK.stroke_width(2),
                        )])
                        .map_err(e)?;
                }
            }
            if s.elo.is_finite() {
                chart
                    .draw_series([Circle::new((clamp(s.elo), y), 5, BLACK.filled())])
                    .map_err(e)?;
                let (px, py) = chart.backend_coord(&(clamp(s.elo), y));
                root.draw(&Text::new(
                    super::numbers::fixed(s.elo, 0, true),
                    (px, py - 8),
                    text_style(11).pos(Pos::new(HPos::Center, VPos::Bottom)),
                ))
                .map_err(e)?;
            }
            row_label(root, chart.backend_coord(&(low, y)), &s.bot)?;
        }
        Ok(())
    })
}

/// The points matrix as a heat map: darker is more of the points there were to win, each
/// cell labelled with its points; pairs that never met are left blank.
pub(crate) fn points_matrix(report: &Report) -> Result<String, Error> {
    let n = report.bots.len();
    // Rows and columns in the standings' order, as the tables'.
    let order = report.ranked();
    let names: &Vec<String> = &order.iter().map(|&i| report.bots[i].clone()).collect();
    let label_size = if n > 16 { 10 } else { 13 };
    let left = label_width(names, label_size);
    let cell = ((WIDTH - left - 30) / n.max(1) as u32).min(80);
    // Each column is named too: across when every name fits its cell, else upright,
    // reading upwards, in a label area as tall as the longest name.
    let longest = names.iter().map(|b| b.chars().count()).max().unwrap_or(0) as u32;
    let upright = longest * label_size * 6 / 10 + 8 > cell;
    let below = if upright {
        label_width(names, label_size) + 30
    } else {
        40
    };
    let height = 70 + below + cell * n as u32;
    // As wide as the cells need, and wide enough for the caption.
    let width = (left + 36 + cell * n as u32).max(300);
    svg("points_matrix.svg", (width, height), |root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let right = width as i32 - (left as i32 + 12 + (cell * n as u32) as i32);
        let mut chart = ChartBuilder::on(root)
            .caption("Points: row against column", text_style(16))
            .margin_top(12)
            .margin_left(12)
            .margin_right(right.max(12))
            .margin_bottom(12)
            .x_label_area_size(below)
            .y_label_area_size(left)
            .build_cartesian_2d(0.0..n.max(1) as f64, 0.0..n.max(1) as f64)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(0)
            .y_labels(0)
            .x_desc("opponent")
            .label_style(text_style(12))
            .draw()
            .map_err(e)?;
        let win = report.plan.points_win.max(f64::MIN_POSITIVE);
        for (row, &i) in order.iter().enumerate() {
            let y = (n - row - 1) as f64;
            for (column, &j) in order.iter().enumerate() {
                let x = column as f64;
                let games = report.met[i][j];
                if i == j || games == 0 {
                    continue;
                }
                let points = report.points[i][j];
                let share = (points / (games as f64 * win)).clamp(0.0, 1.0);
                let level = (245.0 - 200.0 * share).round() as u8;
                chart
                    .draw_series([Rectangle::new(
                        [(x, y), (x + 1.0, y + 1.0)],
                        RGBColor(level, level, level).filled(),
                    )])
                    .map_err(e)?;
                let ink = if level < 140 { WHITE } else { BLACK };
                let (px, py) = chart.backend_coord(&(x + 0.5, y + 0.5));
                let size = (cell / 3).clamp(8, 14);
                root.draw(&Text::new(
                    super::numbers::num(points),
                    (px, py),
                    font(size)
                        .color(&ink)
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                ))
                .map_err(e)?;
            }
        }
        // The grid over the cells, so blank cells read as blank, not as missing lines.
        for k in 0..=n {
            let k = k as f64;
            let grid = BLACK.stroke_width(1);
            chart
                .draw_series([
                    PathElement::new(vec![(k, 0.0), (k, n as f64)], grid),
                    PathElement::new(vec![(0.0, k), (n as f64, k)], grid),
                ])
                .map_err(e)?;
        }
        for (i, name) in names.iter().enumerate() {
            let (px, py) = chart.backend_coord(&(0.0, (n - i) as f64 - 0.5));
            let style = text_style(label_size).pos(Pos::new(HPos::Right, VPos::Center));
            root.draw(&Text::new(name.clone(), (px - 6, py), style))
                .map_err(e)?;
            let (cx, cy) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
            let style = if upright {
                text_style(label_size)
                    .transform(FontTransform::Rotate270)
                    .pos(Pos::new(HPos::Right, VPos::Center))
            } else {
                text_style(label_size).pos(Pos::new(HPos::Center, VPos::Top))
            };
            root.draw(&Text::new(name.clone(), (cx, cy + 6), style))
                .map_err(e)?;
        }
        Ok(())
    })
}

/// Per bot, the share of its games won in each role: the first role a filled bar, the
/// second a hollow one, each labelled with its percentage.
pub(crate) fn roles(report: &Report) -> Result<String, Error> {
    let rows = &report.table.rows;
    let names: Vec<String> = rows.iter().map(|s| s.bot.clone()).collect();
    let roles = report.role_names();
    svg("roles.svg", (WIDTH, rows_height(rows.len()) + 30), |root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = ChartBuilder::on(root)
            .caption("Win rate by role", text_style(16))
            .margin(12)
            .margin_right(RIGHT)
            .x_label_area_size(58)
            .y_label_area_size(label_width(&names, 13))
            .build_cartesian_2d(0.0..1.12, 0.0..rows.len().max(1) as f64)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc("games won in the role")
            .x_label_formatter(&|x| super::numbers::percent(*x))
            .label_style(text_style(12))
            .light_line_style(TRANSPARENT)
            .draw()
            .map_err(e)?;
        let top = rows.len() as f64;
        for (i, s) in rows.iter().enumerate() {
            let base = top - i as f64 - 1.0;
            for (seat, (games, wins)) in s.by_role.iter().enumerate() {
                let rate = if *games == 0 {
                    0.0
                } else {
                    *wins as f64 / *games as f64
                };
                // The first role's bar above the second's.
                let (y0, y1) = if seat == 0 {
                    (base + 0.52, base + 0.86)
                } else {
                    (base + 0.14, base + 0.48)
                };
                let bar = [(0.0, y0), (rate, y1)];
                if seat == 0 {
                    chart
                        .draw_series([Rectangle::new(bar, BLACK.filled())])
                        .map_err(e)?;
                } else {
                    chart
                        .draw_series([
                            Rectangle::new(bar, WHITE.filled()),
                            Rectangle::new(bar, BLACK.stroke_width(1)),
                        ])
                        .map_err(e)?;
                }
                let (px, py) = chart.backend_coord(&(rate, (y0 + y1) / 2.0));
                root.draw(&Text::new(
                    format!("{} of {games}", super::numbers::percent(rate)),
                    (px + 4, py),
                    text_style(11).pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(e)?;
            }
            row_label(root, chart.backend_coord(&(0.0, base + 0.5)), &s.bot)?;
        }
        // The legend: which bar is which role.
        let (lx, ly) = (16, root.dim_in_pixel().1 as i32 - 24);
        root.draw(&Rectangle::new(
            [(lx, ly), (lx + 14, ly + 10)],
            BLACK.filled(),
        ))
        .map_err(e)?;
        root.draw(&Rectangle::new(
            [(lx + 90, ly), (lx + 104, ly + 10)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
        let style = text_style(12).pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new(
            roles[0].clone(),
            (lx + 18, ly + 5),
            style.clone(),
        ))
        .map_err(e)?;
        root.draw(&Text::new(roles[1].clone(), (lx + 108, ly + 5), style))
            .map_err(e)?;
        Ok(())
    })
}

/// A histogram of rounds per game for each ending, one panel each on a shared axis.
pub(crate) fn lengths(report: &Report) -> Result<String, Error> {
    let endings = &report.endings;
    let panels = endings.len().max(1);
    let longest = endings.iter().map(|e| e.max()).max().unwrap_or(0);
    // About 20 bins over the longest game.
    let bin = longest.div_ceil(20).max(1);
    let bins = longest / bin + 1;
    let height = (60 + 110 * panels as u32).clamp(240, 1200);
    svg("lengths.svg", (WIDTH, height), |root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let root = root
            .titled("Game lengths (rounds) by ending", text_style(16))
            .map_err(e)?;
        if endings.is_empty() {
            return root
                .draw(&Text::new(
                    "no game was played",
                    (WIDTH as i32 / 2, 40),
                    text_style(13).pos(Pos::new(HPos::Center, VPos::Center)),
                ))
                .map_err(e);
        }
        for (ending, area) in endings.iter().zip(root.split_evenly((panels, 1))) {
            let mut counts = vec![0u32; bins as usize];
            for r in &ending.rounds {
                counts[(r / bin) as usize] += 1;
            }
            let tallest = counts.iter().copied().max().unwrap_or(1).max(1);
            let mut chart = ChartBuilder::on(&area)
                .caption(
                    format!(
                        "{}: {} {}, median {} rounds",
                        ending.reason,
                        ending.games(),
                        if ending.games() == 1 { "game" } else { "games" },
                        super::numbers::num(ending.median())
                    ),
                    text_style(12),
                )
                .margin(8)
                .margin_right(RIGHT)
                .x_label_area_size(22)
                .y_label_area_size(44)
                .build_cartesian_2d(0u32..bins * bin, 0u32..tallest + tallest.div_ceil(5))
                .map_err(e)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .y_labels(3)
                .label_style(text_style(10))
                .light_line_style(TRANSPARENT)
                .draw()
                .map_err(e)?;
            let bars = counts.iter().enumerate().filter(|(_, c)| **c > 0);
            for (k, &count) in bars {
                let x0 = k as u32 * bin;
                let bar = [(x0, 0), (x0 + bin, count)];
                chart
                    .draw_series([
                        Rectangle::new(bar, GREY.filled()),
                        Rectangle::new(bar, BLACK.stroke_width(1)),
                    ])
                    .map_err(e)?;
            }
        }
        Ok(())
    })
}

/// The LLR after each pair, from 0 before the first, between its two bounds (dashed),
/// each bound named by the hypothesis it accepts.
pub(crate) fn sprt(report: &Report) -> Result<Option<String>, Error> {
    let Some(test) = &report.sprt else {
        return Ok(None);
    };
    let Some(first) = test.history.first() else {
        // No pair counted yet: the bounds alone, with an empty line.
        return empty_sprt(report).map(Some);
    };
    let (lower, upper) = (first.lower, first.upper);
    let mut points = vec![(0.0, 0.0)];
    points.extend(test.history.iter().map(|s| (s.pairs as f64, s.llr)));
    let lowest = points.iter().map(|p| p.1).fold(lower, f64::min);
    let highest = points.iter().map(|p| p.1).fold(upper, f64::max);
    let (y0, y1) = padded(lowest, highest);
    let x1 = (test.history.len() as f64).max(1.0);
    svg("sprt.svg", (WIDTH, 400), |root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = ChartBuilder::on(root)
            .caption(
                format!("SPRT: {} against {}", test.candidate, test.baseline),
                text_style(16),
            )
            .margin(12)
            .margin_right(RIGHT)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..x1 * 1.02, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("pairs")
            .y_desc("LLR")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .label_style(text_style(12))
            .light_line_style(TRANSPARENT)
            .draw()
            .map_err(e)?;
        for (bound, label) in [(upper, "accept H1"), (lower, "accept H0")] {
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, bound), (x1 * 1.02, bound)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))
                .map_err(e)?;
            let (px, py) = chart.backend_coord(&(0.0, bound));
            root.draw(&Text::new(
                format!("{label} ({bound:+.2})"),
                (px + 6, py - 3),
                text_style(11).pos(Pos::new(HPos::Left, VPos::Bottom)),
            ))
            .map_err(e)?;
        }
        chart
            .draw_series(LineSeries::new(points.clone(), BLACK.stroke_width(2)))
            .map_err(e)?;
        // A dot per pair while they can be told apart.
        if test.history.len() <= 200 {
            chart
                .draw_series(
                    points[1..]
                        .iter()
                        .map(|&p| Circle::new(p, 3, BLACK.filled())),
                )
                .map_err(e)?;
        }
        Ok(())
    })
    .map(Some)
}

fn empty_sprt(report: &Report) -> Result<String, Error> {
    let (lower, upper) = crate::stats::sprt::bounds(
        report.sprt.as_ref().map_or(0.05, |s| s.alpha),
        report.sprt.as_ref().map_or(0.05, |s| s.beta),
    );
    svg("sprt.svg", (WIDTH, 400), |root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let (y0, y1) = padded(lower, upper);
        let mut chart = ChartBuilder::on(root)
            .caption("SPRT: no pair counted yet", text_style(16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(48)
            .build_cartesian_2d(0.0..1.0, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("pairs")
            .y_desc("LLR")
            .label_style(text_style(12))
            .draw()
            .map_err(e)?;
        for bound in [lower, upper] {
            chart
                .draw_series(DashedLineSeries::new(
                    [(0.0, bound), (1.0, bound)],
                    6,
                    4,
                    BLACK.stroke_width(1),
                ))
                .map_err(e)?;
        }
        Ok(())
    })
}
