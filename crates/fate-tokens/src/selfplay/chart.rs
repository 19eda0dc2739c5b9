//! A small standalone SVG bar chart of the good side's win rate per player count.

use std::fmt::Write;

use super::CountReport;

/// The win rates a balanced game aims at: the band the chart shades.
const TARGET: (f64, f64) = (0.45, 0.55);

const HEIGHT: f64 = 320.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 52.0;
/// The horizontal room of one player count.
const SLOT: f64 = 88.0;

/// A chart of each report's win rate as a bar, its 95 % Wilson interval as a whisker, and the
/// 45–55 % target band shaded behind them, as the text of a standalone SVG file.
///
/// One bar per report, in order, each a `rect` of class `bar` carrying its player count in
/// `data-players`; the rate is written above each whisker and the count and games below.
pub fn svg(reports: &[CountReport]) -> String {
    // Room for at least four counts, so that the title fits.
    let slots = reports.len().max(4) as f64;
    let width = LEFT + RIGHT + SLOT * slots;
    let plot = HEIGHT - TOP - BOTTOM;
    let y = |rate: f64| TOP + (1.0 - rate.clamp(0.0, 1.0)) * plot;
    let mut out = String::new();
    // Writing to a String cannot fail, so the results of `write!` are ignored below.
    let _ = writeln!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{HEIGHT:.0}" viewBox="0 0 {width:.0} {HEIGHT:.0}" font-family="sans-serif" font-size="12">"##
    );
    let _ = writeln!(
        out,
        r##"<title>Fate Tokens: the good side's win rate per player count</title>"##
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="16" y="20" font-size="14" font-weight="bold">Good side's win rate per player count</text>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="16" y="38" fill="#555555">whiskers: 95 % Wilson interval · shaded: the 45–55 % target</text>"##
    );
    let (band_top, band_bottom) = (y(TARGET.1), y(TARGET.0));
    let _ = writeln!(
        out,
        r##"<rect class="target" x="{LEFT:.1}" y="{band_top:.1}" width="{:.1}" height="{:.1}" fill="#c8e6c9"/>"##,
        SLOT * slots,
        band_bottom - band_top
    );
    for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let ty = y(tick);
        let _ = writeln!(
            out,
            r##"<line x1="{LEFT:.1}" y1="{ty:.1}" x2="{:.1}" y2="{ty:.1}" stroke="#dddddd"/>"##,
            width - RIGHT
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{:.0} %</text>"##,
            LEFT - 6.0,
            ty + 4.0,
            tick * 100.0
        );
    }
    for (i, report) in reports.iter().enumerate() {
        let centre = LEFT + SLOT * (i as f64 + 0.5);
        let rate = report.win_rate();
        let interval = report.interval();
        let (top, base) = (y(rate), y(0.0));
        let _ = writeln!(
            out,
            r##"<rect class="bar" data-players="{}" x="{:.1}" y="{top:.1}" width="{:.1}" height="{:.1}" fill="#5c6bc0" fill-opacity="0.85"/>"##,
            report.players,
            centre - SLOT * 0.25,
            SLOT * 0.5,
            base - top
        );
        let (high, low) = (y(interval.high), y(interval.low));
        let cap = SLOT * 0.1;
        let _ = writeln!(
            out,
            r##"<path class="whisker" d="M{centre:.1} {high:.1}V{low:.1}M{:.1} {high:.1}H{:.1}M{:.1} {low:.1}H{:.1}" stroke="#212121" stroke-width="1.5" fill="none"/>"##,
            centre - cap,
            centre + cap,
            centre - cap,
            centre + cap
        );
        let _ = writeln!(
            out,
            r##"<text x="{centre:.1}" y="{:.1}" text-anchor="middle">{:.1} %</text>"##,
            high - 6.0,
            rate * 100.0
        );
        let _ = writeln!(
            out,
            r##"<text x="{centre:.1}" y="{:.1}" text-anchor="middle">{} players</text>"##,
            base + 18.0,
            report.players
        );
        let _ = writeln!(
            out,
            r##"<text x="{centre:.1}" y="{:.1}" text-anchor="middle" fill="#555555">{} games</text>"##,
            base + 34.0,
            report.games
        );
    }
    let _ = writeln!(
        out,
        r##"<line x1="{LEFT:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="#212121"/>"##,
        y(0.0),
        width - RIGHT,
        y(0.0)
    );
    out.push_str("</svg>\n");
    out
}
