//! `tokctl`: the command-line client. Its commands land with the CLI issue.

fn main() {
    if std::env::args().nth(1).as_deref() == Some("--version") {
        println!("tokctl {}", env!("CARGO_PKG_VERSION"));
        return;
    }
    eprintln!(
        "tokctl: no commands yet; see README.md for the curl walk-through against tokctl-server"
    );
    std::process::exit(2);
}
