//! rfio's layers only look down (issue 15): every `crate::X` path in a
//! file of `rfio/src` (comments and the unit-test modules left out) names
//! the file's own layer or one the map in `rfio/src/lib.rs` lets it use.
//! The table below is that map; a new import across layers fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Each layer and the layers it may use (besides itself).
const MAP: &[(&str, &[&str])] = &[
    ("failure", &[]),
    ("options", &["failure"]),
    ("man", &["options"]),
    ("completions", &["options"]),
    ("cli", &["options", "failure", "man", "completions"]),
    ("verify", &[]),
    ("engine", &["options"]),
    ("job", &["cli", "options", "failure", "verify", "engine"]),
    ("stats", &["job", "engine"]),
    (
        "run",
        &["job", "engine", "verify", "stats", "options", "failure"],
    ),
    ("plan", &["cli", "failure", "job", "options", "run"]),
    ("result", &["job", "run", "stats"]),
    ("report", &["result", "job", "run", "stats"]),
    ("plot", &["result", "run"]),
    ("merge", &["report", "failure"]),
    (
        "remote",
        &[
            "plan", "cli", "options", "failure", "job", "engine", "run", "stats", "result",
            "report",
        ],
    ),
    (
        "app",
        &[
            "plan", "cli", "options", "failure", "job", "engine", "run", "result", "report",
            "plot", "merge", "remote",
        ],
    ),
    ("parse_check", &["plan", "job", "failure", "cli"]),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("rfio/src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without comments and without its unit-test module
/// (or a `tests.rs` file, which is one).
fn code(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    strip(&std::fs::read_to_string(path).expect("read"))
}

fn strip(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The layers a text names with `crate::X`.
fn named_layers(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `rbench_common::...` or `$crate::` are no paths into rfio.
        let before = rest[..i].chars().last();
        if !name.is_empty()
            && !matches!(before, Some(c) if c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            out.insert(name);
        }
        rest = after;
    }
    out
}

#[test]
fn every_layer_only_uses_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../rfio/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 100, "rfio's sources: {}", files.len());
    let mut wrong = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let top = rel.components().next().expect("component");
        let layer = top
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if matches!(layer.as_str(), "main" | "lib") {
            continue;
        }
        let allowed = MAP
            .iter()
            .find(|(l, _)| *l == layer)
            .unwrap_or_else(|| panic!("{}: layer {layer} is not in the map", rel.display()))
            .1;
        for used in named_layers(&code(f)) {
            if used != layer && !allowed.contains(&used.as_str()) {
                wrong.push(format!("{} uses {used}", rel.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the map:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_map_has_no_circle() {
    // Every layer may only use layers listed before it.
    for (i, (layer, uses)) in MAP.iter().enumerate() {
        for u in *uses {
            let at = MAP.iter().position(|(l, _)| l == u);
            assert!(
                at.is_some_and(|a| a < i),
                "{layer} uses {u}, which is not listed before it"
            );
        }
    }
}

#[test]
fn a_path_against_the_map_is_seen() {
    let found = named_layers(&strip(
        "use crate::run::worker; // crate::plot\nlet x = rbench_common::x;\n#[cfg(test)]\nmod tests {\n    use crate::app;\n}",
    ));
    assert_eq!(found.into_iter().collect::<Vec<_>>(), ["run"]);
}
