//! Decides once how results are printed (table, tab-separated lines, or JSON) and prints them.
//! Commands hand it data; only this module writes to stdout.

use std::io::{self, IsTerminal, Write};

use chrono::{DateTime, Utc};
use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, Color, ContentArrangement, Table};
use serde::Serialize;

use crate::cli::{GlobalArgs, OutputFormat};

/// How a table row should stand out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Normal,
    /// Needs attention soon (expiring).
    Warn,
    /// No longer usable (expired, revoked).
    Dim,
}

/// Something that can be listed as a row.
pub trait Row {
    /// Column headers.
    fn headers() -> &'static [&'static str];
    /// Cells, with times written by `time`.
    fn cells(&self, time: &dyn Fn(Option<DateTime<Utc>>) -> String) -> Vec<String>;
    /// The value `--quiet` prints.
    fn key(&self) -> &str;
    /// How the row stands out on a terminal.
    fn mark(&self) -> Mark {
        Mark::Normal
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Table,
    Plain,
    Json,
}

/// Where and how results go.
pub struct Output {
    style: Style,
    quiet: bool,
    color: bool,
    human_times: bool,
}

impl Output {
    /// From the global flags and whether stdout is a terminal.
    pub fn new(global: &GlobalArgs) -> Self {
        let tty = io::stdout().is_terminal();
        let style = match global.output {
            Some(OutputFormat::Json | OutputFormat::Sarif) => Style::Json,
            Some(OutputFormat::Plain) => Style::Plain,
            Some(OutputFormat::Auto) | None if tty => Style::Table,
            _ => Style::Plain,
        };
        Output {
            style,
            quiet: global.quiet,
            color: tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            human_times: tty && style == Style::Table,
        }
    }

    /// Plain lines on stdout, whatever stdout is (for event streams).
    pub fn plain() -> Self {
        Output {
            style: Style::Plain,
            quiet: false,
            color: false,
            human_times: false,
        }
    }

    /// Whether JSON was asked for.
    pub fn json(&self) -> bool {
        self.style == Style::Json
    }

    /// Whether results go to a terminal as a table.
    pub fn tabular(&self) -> bool {
        self.style == Style::Table
    }

    /// Whether only the essential value is wanted.
    pub fn quiet(&self) -> bool {
        self.quiet
    }

    /// Prints any value as pretty JSON.
    pub fn print_json(&self, value: &impl Serialize) -> io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(io::Error::other)?;
        self.line(&text)
    }

    /// Prints one line.
    pub fn line(&self, text: &str) -> io::Result<()> {
        let mut out = io::stdout().lock();
        writeln!(out, "{text}")?;
        out.flush()
    }

    /// Prints text without a newline, at once (a streamed answer).
    pub fn text(&self, text: &str) -> io::Result<()> {
        self.bytes(text.as_bytes())
    }

    /// Prints bytes as they are, at once.
    pub fn bytes(&self, bytes: &[u8]) -> io::Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(bytes)?;
        out.flush()
    }

    /// Prints items: keys when quiet, JSON, a table, or tab-separated lines.
    pub fn list<T: Row + Serialize>(&self, items: &[T]) -> io::Result<()> {
        if self.quiet {
            return items.iter().try_for_each(|item| self.line(item.key()));
        }
        match self.style {
            Style::Json => self.print_json(&items),
            Style::Plain => items
                .iter()
                .try_for_each(|item| self.line(&item.cells(&|t| self.time(t)).join("\t"))),
            Style::Table => self.table(items),
        }
    }

    /// Prints one item of a stream as one line: its key when quiet, compact JSON, or
    /// tab-separated cells.
    pub fn row<T: Row + Serialize>(&self, item: &T) -> io::Result<()> {
        if self.quiet {
            return self.line(item.key());
        }
        match self.style {
            Style::Json => {
                let line = serde_json::to_string(item).map_err(io::Error::other)?;
                self.line(&line)
            }
            Style::Plain | Style::Table => self.line(&item.cells(&|t| self.time(t)).join("\t")),
        }
    }

    /// Prints one item: its key when quiet, JSON, or `field: value` lines.
    pub fn item<T: Row + Serialize>(&self, item: &T) -> io::Result<()> {
        if self.quiet {
            return self.line(item.key());
        }
        if self.style == Style::Json {
            return self.print_json(item);
        }
        let cells = item.cells(&|t| self.time(t));
        let width = T::headers().iter().map(|h| h.len()).max().unwrap_or(0);
        for (header, value) in T::headers().iter().zip(cells) {
            self.line(&format!("{:<width$}  {value}", header.to_lowercase()))?;
        }
        Ok(())
    }

    fn table<T: Row>(&self, items: &[T]) -> io::Result<()> {
        let mut table = Table::new();
        table
            .load_style(UTF8_FULL_CONDENSED)
            .set_header(T::headers().to_vec());
        // Fit the terminal, unless it reports no usable width (then columns would collapse).
        // Without colour the table still fits: only the cells below are ever styled.
        if table.width().is_some_and(|width| width >= 40) {
            table.set_content_arrangement(ContentArrangement::Dynamic);
        }
        for item in items {
            let color = match item.mark() {
                Mark::Normal => None,
                Mark::Warn => Some(Color::Yellow),
                Mark::Dim => Some(Color::DarkGrey),
            };
            table.add_row(item.cells(&|t| self.time(t)).into_iter().map(|text| {
                let cell = Cell::new(text);
                match color {
                    Some(color) if self.color => cell.fg(color),
                    _ => cell,
                }
            }));
        }
        self.line(&table.to_string())
    }

    /// A time as shown: "in 6 days" on a terminal table, RFC 3339 otherwise, "-" when absent.
    pub fn time(&self, at: Option<DateTime<Utc>>) -> String {
        match at {
            None => "-".into(),
            Some(at) if self.human_times => relative(at, Utc::now()),
            Some(at) => at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        }
    }
}

/// "in 6 days", "3 hours ago", "just now".
pub fn relative(at: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (at - now).num_seconds();
    let magnitude = seconds.unsigned_abs();
    let (count, unit) = match magnitude {
        0..45 => return "just now".into(),
        45..5400 => (magnitude.div_ceil(60).max(1), "minute"),
        5400..79_200 => ((magnitude + 1800) / 3600, "hour"),
        79_200..5_184_000 => ((magnitude + 43_200) / 86_400, "day"),
        5_184_000..28_512_000 => ((magnitude + 1_296_000) / 2_592_000, "month"),
        _ => ((magnitude + 15_768_000) / 31_536_000, "year"),
    };
    let plural = if count == 1 { "" } else { "s" };
    if seconds > 0 {
        format!("in {count} {unit}{plural}")
    } else {
        format!("{count} {unit}{plural} ago")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times_read_naturally() {
        let now = Utc::now();
        let days = |d: i64| now + chrono::Duration::days(d);
        assert_eq!(relative(days(6), now), "in 6 days");
        assert_eq!(relative(days(-1), now), "1 day ago");
        assert_eq!(
            relative(now + chrono::Duration::hours(3), now),
            "in 3 hours"
        );
        assert_eq!(relative(now, now), "just now");
        assert_eq!(relative(days(-400), now), "1 year ago");
    }
}
