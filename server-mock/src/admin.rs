//! Operator actions on a data directory: the first-start bootstrap and the `admin` subcommands.
//! They work while a server runs on the same directory: it reads credentials from storage.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};

use crate::secrets::{CredentialKind, Secret, new_id, new_secret};
use crate::store::Scope;
use crate::store::{NewApiKey, Store, StoreError, Workspace};

/// Name of the file holding the first admin key.
pub const ADMIN_KEY_FILE: &str = "admin.key";
/// Name of the key made with each workspace.
pub const ADMIN_KEY_NAME: &str = "admin";
/// What API keys made by these commands show as `created_by`.
pub const ADMIN_CREATOR: &str = "admin";
/// Name of the workspace made on first start.
pub const DEFAULT_WORKSPACE: &str = "default";

/// On an empty store: creates workspace `default` and an admin key with every scope, prints the
/// key once and writes it to `DIR/admin.key` (mode 0600). Later: says where the file is.
pub async fn first_start(store: &Arc<dyn Store>, data_dir: &Path) -> anyhow::Result<()> {
    let key_path = data_dir.join(ADMIN_KEY_FILE);
    let workspace = Workspace {
        id: new_id("ws_"),
        name: DEFAULT_WORKSPACE.into(),
    };
    let (key, secret) = new_key(&workspace.id, Scope::ALL.to_vec(), Some(ADMIN_KEY_NAME));
    if store.bootstrap(workspace, key).await? {
        // The key is committed: show it even if the file cannot be written, or it is lost.
        let saved = write_private(&key_path, &format!("{}\n", secret.expose()));
        println!(
            "Created workspace \"{DEFAULT_WORKSPACE}\" and an admin API key with every scope."
        );
        match &saved {
            Ok(()) => println!(
                "Admin API key (shown once; also saved to {}):",
                key_path.display()
            ),
            Err(_) => println!(
                "Admin API key (shown once; it could not be saved to {}):",
                key_path.display()
            ),
        }
        println!();
        println!("    {}", secret.expose());
        println!();
        saved?;
    } else if key_path.exists() {
        tracing::info!("admin API key is in {}", key_path.display());
    } else if store.shared() {
        tracing::info!(
            "the database is set up; its first admin key was printed by the instance that set it up (make another with `tokctl-server admin create-key --workspace {DEFAULT_WORKSPACE}`)"
        );
    } else {
        tracing::info!(
            "{} is gone; make a key with `tokctl-server admin create-key --workspace {DEFAULT_WORKSPACE}`",
            key_path.display()
        );
    }
    Ok(())
}

/// Creates workspace `name` with an API key holding every scope; returns the key.
pub async fn create_workspace(store: &Arc<dyn Store>, name: &str) -> anyhow::Result<Secret> {
    let name = name.trim();
    if name.is_empty() || name.len() > 100 || name.chars().any(char::is_control) {
        bail!("workspace name must be 1 to 100 characters without control characters");
    }
    let workspace = Workspace {
        id: new_id("ws_"),
        name: name.to_string(),
    };
    let workspace_id = workspace.id.clone();
    match store.create_workspace(workspace).await {
        Err(StoreError::WorkspaceExists) => bail!("workspace {name:?} already exists"),
        other => other?,
    }
    let (key, secret) = new_key(&workspace_id, Scope::ALL.to_vec(), Some(ADMIN_KEY_NAME));
    store.create_api_key(key, None).await?;
    Ok(secret)
}

/// Creates an API key in workspace `name` with `scopes` (every scope when empty), named `name`
/// (default: `key-` and the start of its id).
pub async fn create_key(
    store: &Arc<dyn Store>,
    workspace: &str,
    scopes: &[String],
    name: Option<&str>,
) -> anyhow::Result<Secret> {
    let found = store
        .workspace_by_name(workspace)
        .await?
        .with_context(|| format!("no workspace named {workspace:?}"))?;
    let scopes = if scopes.is_empty() {
        Scope::ALL.to_vec()
    } else {
        scopes
            .iter()
            .map(|s| Scope::parse(s).with_context(|| format!("unknown scope {s:?}")))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let name = name
        .map(|raw| {
            crate::validate::name(raw).map_err(|_| {
                anyhow::anyhow!("--name must be 1 to 100 characters without control characters")
            })
        })
        .transpose()?;
    let (key, secret) = new_key(&found.id, scopes, name.as_deref());
    let name = key.name.clone();
    match store.create_api_key(key, None).await {
        Err(StoreError::NameTaken) => {
            bail!("an API key named {name:?} is already live in {workspace:?}")
        }
        other => other?,
    };
    Ok(secret)
}

/// Copies the SQLite data in `data_dir` into the empty PostgreSQL `database` (see
/// [`crate::store::copy`]) and says what was copied and how to serve it. `key_file` is the
/// webhook key the data directory's secrets are sealed with (default `DIR/webhook.key`).
pub async fn copy_to_postgres(
    data_dir: &Path,
    database: &crate::store::postgres::Database,
    key_file: Option<PathBuf>,
) -> anyhow::Result<()> {
    // Held for the whole copy: no server may change the directory meanwhile. (A directory
    // that does not exist holds no database, which the copy says.)
    let _lock = data_dir
        .is_dir()
        .then(|| crate::lock::DataDirLock::acquire(data_dir))
        .transpose()
        .map_err(|err| match err {
            crate::lock::LockError::Held { .. } => {
                anyhow::anyhow!("{err}: stop it first, so nothing changes during the copy")
            }
            crate::lock::LockError::Io { .. } => anyhow::anyhow!(err),
        })?;
    let key_file = key_file.unwrap_or_else(|| data_dir.join(crate::seal::KEY_FILE));
    let sealer = crate::seal::Sealer::load(&key_file)?;
    let (url, timeout) = (&database.url, database.limits.timeout);
    let (tls, link) = url.tls()?;
    let copied = crate::store::copy::to_postgres(data_dir, url, timeout, tls, &sealer).await?;
    println!(
        "Copied {} into PostgreSQL at {} ({}):",
        data_dir.display(),
        url.target(),
        link.describe()
    );
    for (table, rows) in copied {
        println!("  {table:<24} {rows:>10} rows");
    }
    println!();
    println!("Serve it from every instance with the same URL and this webhook key:");
    println!(
        "  tokctl-server serve --database-url URL --webhook-key-file {}",
        key_file.display()
    );
    Ok(())
}

fn new_key(workspace_id: &str, scopes: Vec<Scope>, name: Option<&str>) -> (NewApiKey, Secret) {
    let secret = new_secret(CredentialKind::ApiKey);
    let id = new_id("key_");
    let key = NewApiKey {
        name: name.map_or_else(|| format!("key-{}", &id[4..12]), str::to_string),
        id,
        workspace_id: workspace_id.to_string(),
        scopes,
        digest: secret.digest(),
        created_at: crate::store::now(),
        expires_at: None,
        created_by: ADMIN_CREATOR.to_string(),
        limit: None,
    };
    (key, secret)
}

/// Writes `contents` to a new file readable by the owner only.
fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    crate::files::write_private_bytes(path, contents.as_bytes())
}
