//! The configuration file (profiles) and the settings in effect.
//!
//! Precedence: flags > environment (`TOKCTL_API_KEY`, `TOKCTL_BASE_URL`, `TOKCTL_PROFILE`) >
//! profile > defaults. A profile chosen by name must exist in the file. With no key anywhere
//! and a loopback base URL, the key the reference server wrote on its first start (`admin.key`
//! in its data directory) is used, so a fresh `tokctl-server` and `tokctl tokens list` work
//! together with no copying.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::GlobalArgs;
use crate::error::CliError;

/// Name of the profile used when none is chosen.
pub const DEFAULT_PROFILE: &str = "default";

/// `config.toml`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ConfigFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_profile: Option<String>,
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
}

/// One profile.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct Profile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_base_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
}

/// Where a setting came from, for `config show`.
#[derive(Debug, Clone)]
pub enum Source {
    Flag,
    Env(&'static str),
    Profile(String),
    ServerKeyFile(PathBuf),
    Default,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Flag => f.write_str("flag"),
            Source::Env(name) => write!(f, "env {name}"),
            Source::Profile(name) => write!(f, "profile {name}"),
            Source::ServerKeyFile(path) => write!(f, "reference server key {}", path.display()),
            Source::Default => f.write_str("default"),
        }
    }
}

impl Source {
    /// The hint for a refused key from here (`what`: `was refused` or `has expired`): a
    /// variable to check, a profile to log in again, or the reference server's key file.
    pub fn key_hint(source: Option<&Source>, what: &str) -> String {
        match source {
            Some(Source::Env(var)) => format!(
                "the API key comes from {var}, and it {what}: set a valid key there, or unset it to use your profile"
            ),
            Some(Source::ServerKeyFile(path)) => format!(
                "the API key is the one in {}, and it {what}: is the server at the base URL the one using that data directory? `tokctl login` saves another key",
                path.display()
            ),
            Some(Source::Profile(name)) => {
                format!(
                    "the API key of profile {name:?} {what}: run `tokctl login` to save a new one"
                )
            }
            Some(Source::Flag | Source::Default) | None => "run `tokctl login`".into(),
        }
    }

    /// Where a value came from, as the user named it: `--base-url`, `TOKCTL_BASE_URL`,
    /// `profile "ci"`.
    fn origin(&self, flag: &str) -> String {
        match self {
            Source::Flag => flag.to_string(),
            Source::Env(name) => (*name).to_string(),
            Source::Profile(name) => format!("profile {name:?}"),
            Source::ServerKeyFile(path) => path.display().to_string(),
            Source::Default => "the default".to_string(),
        }
    }
}

/// The settings in effect.
#[derive(Debug)]
pub struct Settings {
    pub profile: String,
    /// As given; [`Settings::base_url`] checks it.
    pub base_url: (String, Source),
    /// `None`: the same server as `base_url`.
    pub chat_base_url: Option<(String, Source)>,
    pub api_key: Option<(String, Source)>,
}

impl Settings {
    /// The token API base URL in effect, checked and completed ([`base_url`]).
    pub fn base_url(&self) -> Result<String, CliError> {
        let (raw, source) = &self.base_url;
        base_url(raw).map_err(|why| {
            CliError::usage(format!(
                "invalid base URL {raw:?} (from {}): {why}",
                source.origin("--base-url")
            ))
        })
    }
}

/// A token API base URL as typed, made usable, or why it cannot be: it needs `http://` or
/// `https://`, and `/v1` is added when no version segment (`v1`, `v2`, ...) ends its path, so
/// `http://127.0.0.1:8080` works as `http://127.0.0.1:8080/v1`.
pub fn base_url(raw: &str) -> Result<String, String> {
    let raw = raw.trim();
    if !raw.contains("://") {
        return Err(format!("it has no scheme; did you mean http://{raw}?"));
    }
    let mut url = url::Url::parse(raw).map_err(|err| err.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "{}:// is not served: use http or https",
            url.scheme()
        ));
    }
    if url.host().is_none() {
        return Err("it has no host".to_string());
    }
    let path = url.path().trim_end_matches('/').to_string();
    let versioned = path
        .rsplit('/')
        .next()
        .and_then(|last| last.strip_prefix('v'))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    url.set_path(&if versioned {
        path
    } else {
        format!("{path}/v1")
    });
    Ok(url.to_string())
}

/// The config file's path: `TOKCTL_CONFIG`, else `CONFIG_DIR/tokctl/config.toml`.
pub fn path() -> Result<PathBuf, CliError> {
    if let Some(path) = env("TOKCTL_CONFIG") {
        return Ok(PathBuf::from(path));
    }
    dirs::config_dir()
        .map(|dir| dir.join("tokctl").join("config.toml"))
        .ok_or_else(|| CliError::new("no configuration directory; set TOKCTL_CONFIG"))
}

/// Reads the config file; a missing file is an empty configuration. A file that is not valid
/// TOML, or not a configuration, is an error naming the file, the line and the problem.
pub fn load(path: &Path) -> Result<ConfigFile, CliError> {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text).map_err(|err| {
            let at = err.span().map_or(String::new(), |span| {
                let before = text.get(..span.start).unwrap_or(&text);
                let line = before.matches('\n').count() + 1;
                let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
                format!(" at line {line}, column {column}")
            });
            let problem = err
                .message()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            CliError::new(format!(
                "{}: not a valid configuration{at}: {problem}",
                path.display()
            ))
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(ConfigFile::default()),
        Err(err) => Err(CliError::new(format!(
            "cannot read {}: {err}",
            path.display()
        ))),
    }
}

/// Writes the config file atomically, readable by the owner only (0600).
pub fn save(path: &Path, config: &ConfigFile) -> Result<(), CliError> {
    let text = toml::to_string(config).map_err(|err| CliError::new(err.to_string()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)?;
    let temp = path.with_extension("toml.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&temp)?;
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    std::fs::rename(&temp, path)?;
    Ok(())
}

/// The profile name in effect and what chose it: `--profile`, then `TOKCTL_PROFILE`, then the
/// file's current profile; when nothing did, [`DEFAULT_PROFILE`].
fn chosen_profile(global: &GlobalArgs, config: &ConfigFile) -> (String, Option<&'static str>) {
    if let Some(name) = &global.profile {
        (name.clone(), Some("--profile"))
    } else if let Some(name) = env("TOKCTL_PROFILE") {
        (name, Some("TOKCTL_PROFILE"))
    } else if let Some(name) = &config.current_profile {
        (name.clone(), Some("current_profile"))
    } else {
        (DEFAULT_PROFILE.to_string(), None)
    }
}

/// Fails (usage error) when the profile chosen is not in the file, rather than quietly using
/// defaults. The `default` profile always exists: empty until something is saved in it.
pub fn check_profile(
    global: &GlobalArgs,
    config: &ConfigFile,
    path: &Path,
) -> Result<(), CliError> {
    match chosen_profile(global, config) {
        (name, Some(origin)) if name != DEFAULT_PROFILE && !config.profiles.contains_key(&name) => {
            Err(unknown_profile(&name, Some(origin), config, path))
        }
        _ => Ok(()),
    }
}

/// The usage error for a profile the file does not have, listing those it has.
pub fn unknown_profile(
    name: &str,
    origin: Option<&str>,
    config: &ConfigFile,
    path: &Path,
) -> CliError {
    let origin = origin.map_or(String::new(), |origin| format!(" (from {origin})"));
    let known: Vec<&str> = config.profiles.keys().map(String::as_str).collect();
    let known = if known.is_empty() {
        "it has none; `tokctl login --profile NAME` creates one".to_string()
    } else {
        format!("known profiles: {}", known.join(", "))
    };
    CliError::usage(format!(
        "no profile named {name:?}{origin} in {}; {known}",
        path.display()
    ))
}

/// Works out every setting and where it comes from.
pub fn resolve(global: &GlobalArgs, config: &ConfigFile) -> Settings {
    let (profile_name, _) = chosen_profile(global, config);
    let profile = config
        .profiles
        .get(&profile_name)
        .cloned()
        .unwrap_or_default();
    let from_profile = || Source::Profile(profile_name.clone());
    let base_url = if let Some(url) = &global.base_url {
        (url.clone(), Source::Flag)
    } else if let Some(url) = env("TOKCTL_BASE_URL") {
        (url, Source::Env("TOKCTL_BASE_URL"))
    } else if let Some(url) = profile.base_url {
        (url, from_profile())
    } else {
        (tokctl_sdk::DEFAULT_BASE_URL.to_string(), Source::Default)
    };
    let chat_base_url = env("TOKCTL_CHAT_BASE_URL")
        .map(|url| (url, Source::Env("TOKCTL_CHAT_BASE_URL")))
        .or_else(|| profile.chat_base_url.map(|url| (url, from_profile())));
    let api_key = env("TOKCTL_API_KEY")
        .map(|key| (key, Source::Env("TOKCTL_API_KEY")))
        .or_else(|| profile.api_key.map(|key| (key, from_profile())))
        .or_else(|| server_key(&base_url.0));
    Settings {
        profile: profile_name,
        base_url,
        chat_base_url,
        api_key,
    }
}

/// The reference server's first-start key, for a server on this machine only.
fn server_key(base_url: &str) -> Option<(String, Source)> {
    let local = match url::Url::parse(base_url).ok()?.host()? {
        url::Host::Domain(name) => name == "localhost",
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    };
    if !local {
        return None;
    }
    let dir = env("TOKCTL_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs::data_dir().map(|d| d.join("tokctl-server")))?;
    let path = dir.join("admin.key");
    let key = std::fs::read_to_string(&path).ok()?.trim().to_string();
    (!key.is_empty()).then_some((key, Source::ServerKeyFile(path)))
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}
