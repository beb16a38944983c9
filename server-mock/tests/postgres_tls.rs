//! TLS to PostgreSQL, against a PostgreSQL of the tests' own that accepts TLS connections only
//! (`hostssl` in `pg_hba.conf`), with a CA and certificates made here: `require` encrypts (and
//! PostgreSQL's `pg_stat_ssl` says so), `verify-full` with the right CA verifies the host name,
//! another CA, another host name, an expired certificate or `disable` stop the start with one
//! line naming the reason, and a client certificate logs in where the server asks for one.
//!
//! Skipped with a note where PostgreSQL's binaries are missing (a failure under `CI=true`).

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use common::cluster::{self, Cluster, write_private};
use common::{Options, Server, exit_of};
use serde_json::Value;

/// The certificates of a test cluster, as files.
struct Pki {
    /// The CA that signed the server's and the client's certificates.
    ca: PathBuf,
    /// A CA that signed nothing here.
    other_ca: PathBuf,
    /// A client certificate for the role `certuser`, and its key (mode 0600).
    client_cert: PathBuf,
    client_key: PathBuf,
}

/// A TLS-only PostgreSQL whose certificate names `localhost` only.
struct TlsCluster {
    cluster: Cluster,
    pki: Pki,
}

/// The cluster the tests running at once share; started by the first, stopped after the last.
fn shared() -> Option<Arc<TlsCluster>> {
    static SHARED: Mutex<Weak<TlsCluster>> = Mutex::new(Weak::new());
    let bin = cluster::binaries("the PostgreSQL TLS tests")?;
    let mut shared = SHARED.lock().unwrap();
    if let Some(running) = shared.upgrade() {
        return Some(running);
    }
    let started = Arc::new(start(&bin, false));
    *shared = Arc::downgrade(&started);
    Some(started)
}

/// Starts a TLS-only cluster whose server certificate is for `localhost`, expired if asked.
fn start(bin: &Path, expired: bool) -> TlsCluster {
    let mut pki = None;
    let cluster = Cluster::start(bin, |dir| {
        let (ca, issuer) = authority("tokctl test CA");
        let (other_ca, _) = authority("another CA");
        let mut server = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
        if expired {
            server.not_before = rcgen::date_time_ymd(2020, 1, 1);
            server.not_after = rcgen::date_time_ymd(2021, 1, 1);
        }
        let (server_cert, server_key) = signed(server, &issuer);
        let mut client = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
        client
            .distinguished_name
            .push(rcgen::DnType::CommonName, "certuser");
        let (client_cert, client_key) = signed(client, &issuer);
        std::fs::write(dir.join("ca.crt"), ca).unwrap();
        std::fs::write(dir.join("other-ca.crt"), other_ca).unwrap();
        std::fs::write(dir.join("server.crt"), server_cert).unwrap();
        write_private(&dir.join("server.key"), &server_key);
        std::fs::write(dir.join("client.crt"), client_cert).unwrap();
        write_private(&dir.join("client.key"), &client_key);
        pki = Some(Pki {
            ca: dir.join("ca.crt"),
            other_ca: dir.join("other-ca.crt"),
            client_cert: dir.join("client.crt"),
            client_key: dir.join("client.key"),
        });
        let d = dir.display();
        let conf = format!(
            "ssl = on\nssl_cert_file = '{d}/server.crt'\nssl_key_file = '{d}/server.key'\n\
             ssl_ca_file = '{d}/ca.crt'\n"
        );
        // TLS only; the role certuser logs in by its client certificate.
        let hba = "hostssl all certuser 127.0.0.1/32 cert\nhostssl all all 127.0.0.1/32 trust\n";
        (conf, hba.to_string())
    });
    TlsCluster {
        cluster,
        pki: pki.unwrap(),
    }
}

impl TlsCluster {
    /// The URL of database `db` at `host`, in `mode`, trusting the CA certificates in `ca`.
    fn trusting(&self, mode: &str, host: &str, db: &str, ca: &Path) -> String {
        let ca = param(ca);
        self.cluster
            .url(host, db, &format!("sslmode={mode}&sslrootcert={ca}"))
    }
}

/// A self-signed CA: its certificate (PEM) and what signs with it.
fn authority(name: &str) -> (String, rcgen::Issuer<'static, rcgen::KeyPair>) {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, name);
    let cert = params.self_signed(&key).unwrap();
    (cert.pem(), rcgen::Issuer::new(params, key))
}

/// A certificate from `params` signed by `issuer`, and its key, both PEM.
fn signed(
    params: rcgen::CertificateParams,
    issuer: &rcgen::Issuer<'static, rcgen::KeyPair>,
) -> (String, String) {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, issuer).unwrap();
    (cert.pem(), key.serialize_pem())
}

fn param(path: &Path) -> String {
    path.display().to_string()
}

/// `tokctl-server` with `args`, run to its exit.
fn run(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let tmp = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_tokctl-server"));
    command
        .args(args)
        .arg("--data-dir")
        .arg(tmp.path().join("data"))
        .env_remove("TOKCTL_DATABASE_URL")
        .env_remove("SSL_CERT_FILE")
        .env_remove("SSL_CERT_DIR");
    for (key, value) in env {
        command.env(key, value);
    }
    exit_of(&mut command, Duration::from_secs(30))
}

/// The one line a start refused on `url` prints, after checking it is one line, exit code 1,
/// and holds no password.
fn refused(url: &str) -> String {
    let output = run(
        &["serve", "--listen", "127.0.0.1:0", "--database-url", url],
        &[],
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("tokctl-server: cannot connect to PostgreSQL at "),
        "{stderr}"
    );
    assert!(
        !stderr.contains("hunter2") && !stderr.contains("panicked"),
        "{stderr}"
    );
    stderr
}

/// A server on `url`, once it serves: its start-up line about the connection, and `/readyz`'s
/// `database_tls`.
async fn serving(url: &str, env: Vec<(&str, &str)>) -> (Server, String, String) {
    let server = Server::start_with(Options {
        database: Some(url.to_string()),
        env,
        ..Default::default()
    });
    let logs = server.logs();
    let line = logs
        .lines()
        .find_map(|line| line.split_once("PostgreSQL: ").map(|(_, said)| said))
        .unwrap_or_else(|| panic!("no line about the connection:\n{logs}"))
        .split(" target=")
        .next()
        .unwrap()
        .to_string();
    let ready = reqwest::get(server.url("/readyz")).await.unwrap();
    assert_eq!(ready.status(), 200);
    let ready: Value = ready.json().await.unwrap();
    let tls = ready["database_tls"].as_str().unwrap().to_string();
    (server, line, tls)
}

#[tokio::test]
async fn require_encrypts_every_connection_and_postgresql_sees_it() {
    let Some(tls) = shared() else { return };
    let db = tls.cluster.create_database().await;
    let url = tls.cluster.url("localhost", &db, "sslmode=require");
    let (server, line, ready) = serving(&url, Vec::new()).await;
    assert_eq!(line, "TLS 1.3, certificate not verified (sslmode=require)");
    assert_eq!(ready, line);
    let token = server.create_token("over-tls", &["tokens:read"]).await;
    assert!(token["token"].is_string(), "{token}");

    let sessions = tls
        .cluster
        .admin()
        .await
        .query_one(
            "SELECT count(*), count(*) FILTER (WHERE s.ssl AND s.version = 'TLSv1.3')
             FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid)
             WHERE a.datname = $1 AND a.application_name = 'tokctl-server'",
            &[&db],
        )
        .await
        .unwrap();
    let (all, encrypted): (i64, i64) = (sessions.get(0), sessions.get(1));
    assert!(all >= 2, "the server's sessions: {all}");
    assert_eq!(encrypted, all, "every session of the server is TLS 1.3");
}

#[tokio::test]
async fn verify_full_with_the_right_ca_verifies_the_host_name() {
    let Some(tls) = shared() else { return };
    let db = tls.cluster.create_database().await;
    let url = tls.trusting("verify-full", "localhost", &db, &tls.pki.ca);
    let (_server, line, ready) = serving(&url, Vec::new()).await;
    assert_eq!(line, "TLS 1.3, certificate verified for localhost");
    assert_eq!(ready, line);
}

#[tokio::test]
async fn the_platforms_roots_and_the_loopback_default() {
    let Some(tls) = shared() else { return };
    // sslrootcert=system reads the platform's store, which SSL_CERT_FILE moves; it asks for
    // verify-full without saying so.
    let db = tls.cluster.create_database().await;
    let url = tls.cluster.url("localhost", &db, "sslrootcert=system");
    let ca = param(&tls.pki.ca);
    let (_server, line, _) = serving(&url, vec![("SSL_CERT_FILE", &ca)]).await;
    assert_eq!(line, "TLS 1.3, certificate verified for localhost");

    // Without it the test CA is unknown.
    let line = refused(&tls.cluster.url("localhost", &db, "sslrootcert=system"));
    assert!(line.contains("unknown CA"), "{line}");

    // No sslmode on loopback: TLS preferred, the certificate not checked.
    let db = tls.cluster.create_database().await;
    let (_server, line, _) = serving(&tls.cluster.url("127.0.0.1", &db, ""), Vec::new()).await;
    assert_eq!(line, "TLS 1.3, certificate not verified (sslmode=prefer)");
}

#[tokio::test]
async fn a_certificate_from_another_ca_stops_the_start_saying_what_to_pass() {
    let Some(tls) = shared() else { return };
    for mode in ["verify-full", "verify-ca", "require"] {
        let url = tls.trusting(mode, "localhost", "postgres", &tls.pki.other_ca);
        let line = refused(&url);
        assert!(
            line.contains("TLS certificate not trusted: unknown CA"),
            "{mode}: {line}"
        );
        assert!(
            line.contains("pass sslrootcert=FILE") && line.contains("sslmode=require"),
            "{mode}: {line}"
        );
    }
}

#[tokio::test]
async fn a_certificate_for_another_host_name_stops_verify_full_but_not_verify_ca() {
    let Some(tls) = shared() else { return };
    // The certificate names localhost only, not 127.0.0.1.
    let url = |mode: &str, db: &str| tls.trusting(mode, "127.0.0.1", db, &tls.pki.ca);
    let line = refused(&url("verify-full", "postgres"));
    assert!(
        line.contains("wrong host name (the certificate is for localhost, not 127.0.0.1)"),
        "{line}"
    );

    let db = tls.cluster.create_database().await;
    let (_server, line, _) = serving(&url("verify-ca", &db), Vec::new()).await;
    assert_eq!(
        line,
        "TLS 1.3, certificate chain verified, host name not checked (sslmode=verify-ca)"
    );
}

#[tokio::test]
async fn disable_against_a_tls_only_server_is_a_clear_error() {
    let Some(tls) = shared() else { return };
    let line = refused(&tls.cluster.url("localhost", "postgres", "sslmode=disable"));
    assert!(
        line.contains("no encryption")
            && line.ends_with("the server accepts only TLS connections; drop sslmode=disable\n"),
        "{line}"
    );
}

#[tokio::test]
async fn a_client_certificate_logs_in_where_the_server_asks_for_one() {
    let Some(tls) = shared() else { return };
    let db = tls.cluster.create_database().await;
    tls.cluster
        .admin()
        .await
        .batch_execute(&format!(
            "DO $$ BEGIN CREATE ROLE certuser LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
             ALTER DATABASE {db} OWNER TO certuser"
        ))
        .await
        .unwrap();
    let (ca, cert, key) = (
        param(&tls.pki.ca),
        param(&tls.pki.client_cert),
        param(&tls.pki.client_key),
    );
    let port = tls.cluster.port;
    let base =
        format!("postgres://certuser@localhost:{port}/{db}?sslmode=verify-full&sslrootcert={ca}");
    let (server, line, _) =
        serving(&format!("{base}&sslcert={cert}&sslkey={key}"), Vec::new()).await;
    assert_eq!(line, "TLS 1.3, certificate verified for localhost");
    assert_eq!(
        server.get("/v1/tokens", &server.admin_key).await.status(),
        200
    );

    // Without the certificate PostgreSQL refuses the role.
    let line = refused(&base);
    assert!(
        line.contains("valid client certificate") && line.contains("pass sslcert=FILE"),
        "{line}"
    );

    // A key others may read is refused before anything is sent, as libpq does.
    let loose = tls.cluster.path().join("loose.key");
    std::fs::copy(&tls.pki.client_key, &loose).unwrap();
    std::fs::set_permissions(&loose, std::fs::Permissions::from_mode(0o644)).unwrap();
    let loose = param(&loose);
    let line = refused(&format!("{base}&sslcert={cert}&sslkey={loose}"));
    assert!(
        line.contains("may be read by others") && line.contains("chmod 600"),
        "{line}"
    );
}

#[tokio::test]
async fn admin_commands_take_the_same_url() {
    let Some(tls) = shared() else { return };
    let db = tls.cluster.create_database().await;
    let url = tls.trusting("verify-full", "localhost", &db, &tls.pki.ca);
    let made = run(
        &["admin", "--database-url", &url, "create-workspace", "tls"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&made.stderr);
    assert!(made.status.success(), "{stderr}");
    let key = String::from_utf8(made.stdout).unwrap();
    assert!(key.trim().starts_with("tka_"), "{key}");

    let url = tls.trusting("verify-full", "localhost", &db, &tls.pki.other_ca);
    let refused = run(
        &["admin", "--database-url", &url, "create-workspace", "x"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unknown CA") && !stderr.contains("hunter2"),
        "{stderr}"
    );
}

#[tokio::test]
async fn an_expired_certificate_stops_the_start_saying_so() {
    let Some(bin) = cluster::binaries("the PostgreSQL TLS tests") else {
        return;
    };
    let tls = start(&bin, true);
    let line = refused(&tls.trusting("verify-full", "localhost", "postgres", &tls.pki.ca));
    assert!(
        line.contains("TLS certificate not trusted: expired on 2021-01-01"),
        "{line}"
    );
}
