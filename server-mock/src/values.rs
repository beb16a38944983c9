//! The server's own argument values: what clap cannot parse by itself (durations, comma lists,
//! a share, a database URL that must never be quoted back).

use tokctl_server::store::postgres::DatabaseUrl;

/// Notice offsets: one argument holding a comma list.
#[derive(Clone)]
pub struct Notices(pub Vec<(String, std::time::Duration)>);

pub fn parse_notices(raw: &str) -> Result<Notices, String> {
    tokctl_server::webhooks::expiry::parse_notices(raw).map(Notices)
}

pub fn parse_timeout(raw: &str) -> Result<std::time::Duration, String> {
    match humantime::parse_duration(raw) {
        Ok(timeout) if timeout.is_zero() => Err("must be longer than 0".into()),
        Ok(timeout) => Ok(timeout),
        Err(err) => Err(err.to_string()),
    }
}

/// A share from 0 to 1.
pub fn parse_ratio(raw: &str) -> Result<f64, String> {
    match raw.trim().parse::<f64>() {
        Ok(ratio) if (0.0..=1.0).contains(&ratio) => Ok(ratio),
        _ => Err("must be a number from 0 to 1".into()),
    }
}

/// A retry schedule: one argument holding a comma list.
#[derive(Clone)]
pub struct Schedule(pub Vec<std::time::Duration>);

pub fn parse_schedule(raw: &str) -> Result<Schedule, String> {
    tokctl_server::webhooks::parse_schedule(raw).map(Schedule)
}

/// Parses `--database-url` without quoting it back: it may hold a password.
#[derive(Clone)]
pub struct DatabaseUrlParser;

impl clap::builder::TypedValueParser for DatabaseUrlParser {
    type Value = DatabaseUrl;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<DatabaseUrl, clap::Error> {
        let parsed = value
            .to_str()
            .ok_or_else(|| "not UTF-8".to_string())
            .and_then(str::parse);
        parsed.map_err(|why| {
            clap::Error::raw(
                clap::error::ErrorKind::ValueValidation,
                format!("invalid --database-url: {why}\n"),
            )
            .with_cmd(cmd)
        })
    }
}
