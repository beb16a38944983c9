//! Compiles the dashboard's files (`dashboard/`) into the binary: writes `dashboard_assets.rs`
//! with each file's URL path and bytes, so the server needs no files beside it at run time.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    // Read at run time, not baked in at compile time: a build script compiled for one checkout
    // may be run for another that shares the target directory.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("dashboard");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    collect(&root, &mut files);
    files.sort();
    assert!(
        !files.is_empty(),
        "no dashboard files under {}: the server would serve none",
        root.display()
    );
    let mut out = String::from("&[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let Ok(relative) = path.strip_prefix(&root) else {
            continue;
        };
        let url = format!("/{}", relative.to_string_lossy().replace('\\', "/"));
        // Notes for people (how the tests drive the page) are not served.
        if url.ends_with(".md") {
            continue;
        }
        let _ = writeln!(out, "    ({url:?}, include_bytes!({:?})),", path.display());
    }
    out.push(']');
    let target = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("dashboard_assets.rs");
    std::fs::write(target, out).expect("cannot write dashboard_assets.rs");
}

/// Every file under `dir`, recursively (directories that cannot be read are skipped).
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect(&path, files);
        } else {
            files.push(path);
        }
    }
}
