//! Fails when any dependency's licence is not on the permissive allow-list.

use std::path::Path;
use std::process::Command;

use arbiter_tidy::license_acceptable;
use serde_json::Value;

#[test]
fn every_dependency_has_a_permissive_licence() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(&root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value =
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    let mut refused = Vec::new();
    let packages = metadata["packages"].as_array().expect("packages");
    for package in packages {
        let name = package["name"].as_str().unwrap_or("?");
        let version = package["version"].as_str().unwrap_or("?");
        let license = package["license"].as_str().unwrap_or("");
        let ours = members.contains(&package["id"].as_str().unwrap_or(""));
        if ours {
            assert_eq!(
                license, "MIT OR Apache-2.0",
                "workspace crate {name} must be MIT OR Apache-2.0"
            );
        } else if !license_acceptable(license) {
            refused.push(format!("{name} {version}: {license:?}"));
        }
    }
    assert!(
        packages.len() > members.len(),
        "the dependency graph should not be empty"
    );
    assert!(
        refused.is_empty(),
        "dependencies with licences outside the allow-list:\n{}",
        refused.join("\n")
    );
}
