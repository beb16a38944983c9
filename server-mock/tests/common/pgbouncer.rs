//! PgBouncer (Debian's `pgbouncer`) between the servers and the test PostgreSQL
//! (`TOKCTL_TEST_DATABASE_URL`), on a free loopback port, in the pool mode the test asks for;
//! stopped when dropped. As root it runs as the `postgres` user (PgBouncer refuses root).
//!
//! Without PgBouncer a test says on stderr that it was skipped; under `CI=true` that is a
//! failure instead (`.ci/run` installs it).

use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use super::cluster;

/// A running PgBouncer.
pub struct PgBouncer {
    child: Child,
    /// The loopback port it listens on.
    pub port: u16,
    _dir: tempfile::TempDir,
}

/// PgBouncer in session mode in front of `server` (a PostgreSQL URL), shared by the tests
/// running at once: started by the first, stopped after the last.
pub fn session(server: &str) -> Option<Arc<PgBouncer>> {
    static SHARED: Mutex<Weak<PgBouncer>> = Mutex::new(Weak::new());
    let mut shared = SHARED.lock().unwrap();
    if let Some(running) = shared.upgrade() {
        return Some(running);
    }
    let started = Arc::new(PgBouncer::start(server, "session")?);
    *shared = Arc::downgrade(&started);
    Some(started)
}

impl PgBouncer {
    /// PgBouncer in `pool_mode` in front of `server`, or `None` (said on stderr) without it.
    pub fn start(server: &str, pool_mode: &str) -> Option<PgBouncer> {
        let program = binary()?;
        let url = url::Url::parse(server).expect("a database URL");
        let (host, port) = (
            url.host_str().unwrap_or("127.0.0.1"),
            url.port().unwrap_or(5432),
        );
        let user = match url.username() {
            "" => "postgres",
            user => user,
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let listen = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let d = dir.path().display();
        // Server connections a test's dropped database leaves are closed soon, so they never
        // pile up against PostgreSQL's max_connections.
        let config = format!(
            "[databases]\n* = host={host} port={port}\n\n[pgbouncer]\nlisten_addr = 127.0.0.1\n\
             listen_port = {listen}\nunix_socket_dir =\nauth_type = trust\n\
             auth_file = {d}/users.txt\npool_mode = {pool_mode}\nmax_client_conn = 1000\n\
             default_pool_size = 100\nserver_idle_timeout = 5\nlogfile = {d}/pgbouncer.log\n"
        );
        std::fs::write(dir.path().join("pgbouncer.ini"), config).unwrap();
        std::fs::write(dir.path().join("users.txt"), format!("\"{user}\" \"\"\n")).unwrap();
        let mut command = Command::new(program);
        command
            .arg(dir.path().join("pgbouncer.ini"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if let Some((uid, gid)) = cluster::owner_for(dir.path()) {
            for file in ["", "pgbouncer.ini", "users.txt"] {
                std::os::unix::fs::chown(dir.path().join(file), Some(uid), Some(gid)).unwrap();
            }
            command.uid(uid).gid(gid);
        }
        let child = command.spawn().expect("start pgbouncer");
        let bouncer = PgBouncer {
            child,
            port: listen,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", listen)).is_err() {
            let log = std::fs::read_to_string(bouncer._dir.path().join("pgbouncer.log"));
            assert!(
                Instant::now() < deadline,
                "pgbouncer did not listen within 20 s: {}",
                log.unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(bouncer)
    }

    /// `url` (a database on the PostgreSQL behind it) reached through PgBouncer.
    pub fn url(&self, url: &str) -> String {
        let mut url = url::Url::parse(url).expect("a database URL");
        url.set_host(Some("127.0.0.1")).unwrap();
        url.set_port(Some(self.port)).unwrap();
        url.to_string()
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `pgbouncer`, or `None` (said on stderr; a failure under `CI=true`).
fn binary() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("pgbouncer"))
        .find(|program| program.is_file());
    if found.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but pgbouncer is not installed: the tests through a connection pooler \
             cannot run (apt-get install pgbouncer)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "note: pgbouncer is not installed: the tests through a connection pooler were \
             skipped (apt-get install pgbouncer)"
        );
    }
    found
}
