//! `unsafe` code may live only in the modules listed here, each of which explains why.

use std::fs;
use std::path::{Path, PathBuf};

/// Files allowed to contain `unsafe`, relative to the repository root.
const ALLOWED: &[&str] = &["crates/othello/src/simd.rs"];

fn rust_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

#[test]
fn unsafe_code_stays_in_its_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("root");
    let mut files = Vec::new();
    rust_files(&root.join("crates"), &mut files);
    assert!(files.len() > 10, "found only {} Rust files", files.len());
    let this_file = Path::new(file!()).file_name().expect("name");
    let offenders: Vec<String> = files
        .iter()
        .filter(|path| path.file_name() != Some(this_file))
        .filter(|path| {
            fs::read_to_string(path)
                .is_ok_and(|text| text.contains("unsafe {") || text.contains("unsafe fn"))
        })
        .map(|path| {
            path.strip_prefix(&root)
                .unwrap_or(path)
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|relative| !ALLOWED.contains(&relative.as_str()))
        .collect();
    assert!(
        offenders.is_empty(),
        "unsafe code outside its allowed modules: {offenders:?}"
    );
    for allowed in ALLOWED {
        let text = fs::read_to_string(root.join(allowed)).expect("allowed file exists");
        assert!(
            text.contains("# Why this module contains `unsafe`"),
            "{allowed} must explain its unsafe code"
        );
    }
}
