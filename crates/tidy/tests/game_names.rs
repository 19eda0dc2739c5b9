//! The arena, the server and the store name no game: games reach them only through the
//! families the binary registers, so adding a family changes none of them. Their tests may
//! name games, as they register families of their own.

use std::fs;
use std::path::{Path, PathBuf};

use arbiter_tidy::game_names;

/// The source directories that must name no game, relative to the repository root.
const SCANNED: &[&str] = &[
    "crates/arena/src",
    "crates/server/src",
    "crates/store/src",
    "crates/store-sqlite/src",
    "crates/store-postgres/src",
];

/// Every `.rs` file under `dir` that is not test code: neither a `tests.rs` nor under a
/// `tests` directory.
fn source_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable directory").flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|name| name != "tests") {
                source_files(&path, into);
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|name| name != "tests.rs")
        {
            into.push(path);
        }
    }
}

#[test]
fn the_arena_the_server_and_the_store_name_no_game() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("root");
    let mut files = Vec::new();
    for dir in SCANNED {
        source_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(files.len() > 20, "found only {} Rust files", files.len());
    let mut hits = Vec::new();
    for path in &files {
        let relative = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = fs::read_to_string(path).expect("readable source");
        for (line, content) in game_names(&text) {
            hits.push(format!("{relative}:{line}: {}", content.trim()));
        }
    }
    assert!(
        hits.is_empty(),
        "game names where only registered families may bring them:\n{}",
        hits.join("\n")
    );
}
