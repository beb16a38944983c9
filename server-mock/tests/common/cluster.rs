//! A PostgreSQL server of the test's own, for what the shared test server cannot be made to do
//! (TLS only, with certificates made in the test): `initdb` into a temporary directory with the
//! installed PostgreSQL's binaries, started on a free loopback port, stopped when dropped. As
//! root it runs as the `postgres` user (PostgreSQL refuses to run as root).
//!
//! Without PostgreSQL's binaries a test says on stderr that it was skipped; under `CI=true`
//! that is a failure instead.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use tokio_postgres::NoTls;

/// Where the tests look for `initdb` besides `PATH`: this variable, then Debian's layout.
pub const BIN_VAR: &str = "TOKCTL_TEST_PG_BIN";

/// The directory of `initdb`, `pg_ctl` and `postgres`, or `None` (said on stderr; a failure
/// under `CI=true`) when this machine has none. `what` names the tests skipped.
pub fn binaries(what: &str) -> Option<PathBuf> {
    let found = std::env::var_os(BIN_VAR)
        .map(PathBuf::from)
        .or_else(|| which("initdb"))
        .or_else(debian_binaries)
        .filter(|dir| dir.join("initdb").is_file() && dir.join("pg_ctl").is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but PostgreSQL's binaries (initdb, pg_ctl) are not installed: {what} \
             cannot run (set {BIN_VAR} to their directory)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "note: PostgreSQL's binaries (initdb, pg_ctl) were not found (set {BIN_VAR}): \
             {what} skipped"
        );
    }
    found
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).find(|dir| dir.join(program).is_file())
}

/// `/usr/lib/postgresql/<newest>/bin`.
fn debian_binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

/// A running PostgreSQL of the test's own.
pub struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// The loopback port it listens on.
    pub port: u16,
    owner: Option<(u32, u32)>,
}

impl Cluster {
    /// Initialises and starts a cluster in a new directory. `setup` gets that directory before
    /// the start, to write files there (certificates); it returns lines for
    /// `postgresql.conf` and the whole `pg_hba.conf` (unix socket connections are trusted).
    pub fn start(bin: &Path, setup: impl FnOnce(&Path) -> (String, String)) -> Cluster {
        let dir = tempfile::tempdir().expect("temp dir");
        let owner = owner_for(dir.path());
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let cluster = Cluster {
            dir,
            bin: bin.to_path_buf(),
            port,
            owner,
        };
        cluster.chown(cluster.dir.path());
        let data = cluster.data();
        cluster.run(
            Command::new(bin.join("initdb"))
                .arg("-D")
                .arg(&data)
                .args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
                .arg("--locale=C"),
        );
        let (conf, hba) = setup(cluster.dir.path());
        let socket = cluster.dir.path().display().to_string();
        let mut settings = format!(
            "port = {port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{socket}'\n\
             fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n"
        );
        settings.push_str(&conf);
        append(&data.join("postgresql.conf"), &settings);
        std::fs::write(
            data.join("pg_hba.conf"),
            format!("local all all trust\n{hba}"),
        )
        .unwrap();
        cluster.chown_all();
        cluster.run(
            Command::new(bin.join("pg_ctl"))
                .arg("-D")
                .arg(&data)
                .arg("-l")
                .arg(cluster.dir.path().join("server.log"))
                .args(["-w", "-t", "60", "start"]),
        );
        cluster
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// Its directory, where `setup` wrote its files.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A URL of database `db` at `host` (`127.0.0.1` or `localhost`), user `postgres` with a
    /// password it does not need (to see that no message repeats it), and `query`.
    pub fn url(&self, host: &str, db: &str, query: &str) -> String {
        let port = self.port;
        format!("postgres://postgres:hunter2@{host}:{port}/{db}?{query}")
    }

    /// A new database, its name.
    pub async fn create_database(&self) -> String {
        let mut random = [0u8; 6];
        getrandom::fill(&mut random).unwrap();
        let name = format!("tokctl_{}", hex::encode(random));
        self.admin()
            .await
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
        name
    }

    /// A superuser connection over the unix socket (never TLS).
    pub async fn admin(&self) -> tokio_postgres::Client {
        let mut config = tokio_postgres::Config::new();
        config
            .host_path(self.dir.path())
            .port(self.port)
            .user("postgres")
            .dbname("postgres");
        let (client, connection) = config.connect(NoTls).await.expect("the test's PostgreSQL");
        tokio::spawn(connection);
        client
    }

    /// Makes `path` the cluster's (as root; PostgreSQL reads its keys only when they are).
    fn chown(&self, path: &Path) {
        if let Some((uid, gid)) = self.owner {
            std::os::unix::fs::chown(path, Some(uid), Some(gid)).unwrap();
        }
    }

    fn chown_all(&self) {
        for entry in std::fs::read_dir(self.dir.path()).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                self.chown(&path);
            }
        }
    }

    /// Runs `command` as the cluster's owner, failing the test with its output if it fails.
    fn run(&self, command: &mut Command) {
        if let Some((uid, gid)) = self.owner {
            command.uid(uid).gid(gid);
        }
        let output = command.output().expect("run a PostgreSQL binary");
        assert!(
            output.status.success(),
            "{command:?} failed:\n{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let mut stop = Command::new(self.bin.join("pg_ctl"));
        stop.arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "-w", "stop"]);
        if let Some((uid, gid)) = self.owner {
            stop.uid(uid).gid(gid);
        }
        let _ = stop.output();
    }
}

/// Writes `text` to `path`, readable by its owner only (a private key).
pub fn write_private(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn append(path: &Path, text: &str) {
    let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// Whom to run a server that refuses root as: the `postgres` user's ids when this process runs
/// as root (the owner of `made`, a directory it just made), else `None` (itself).
pub fn owner_for(made: &Path) -> Option<(u32, u32)> {
    use std::os::unix::fs::MetadataExt;
    (std::fs::metadata(made).unwrap().uid() == 0).then(postgres_user)
}

/// The `postgres` user's ids, from `/etc/passwd`.
fn postgres_user() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").unwrap();
    passwd
        .lines()
        .find_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            (fields.first() == Some(&"postgres"))
                .then(|| Some((fields.get(2)?.parse().ok()?, fields.get(3)?.parse().ok()?)))
                .flatten()
        })
        .expect("running as root, the tests need a `postgres` user to run PostgreSQL as")
}
