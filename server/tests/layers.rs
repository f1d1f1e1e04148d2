//! The server's module graph, read from its sources: every arrow between its modules points
//! one way (network → tournaments → pairing → cluster → accounts → game → storage → base), and
//! inside each folder the files import each other without a circle.
//! `cargo test -p jchomp-server --test layers -- --nocapture` prints the graph.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The server's top-level modules from the bottom layer up: a module may import only modules of
/// a lower layer (and itself). Modules of one layer import none of each other.
const LAYERS: &[&[&str]] = &[
    &[
        "clock", "metrics", "ratings", "settings", "shutdown", "sync",
    ],
    &["store"],
    &["game"],
    &["accounts"],
    &["cluster"],
    &["pairing"],
    &["tournaments"],
    &["net"],
    &["error"],
    &["cli", "server"],
    &["lib"],
];

/// One source file: its module path below `crate` (`["game", "room", "play"]`) and its code
/// without comments and test modules.
struct Source {
    module: Vec<String>,
    code: String,
}

fn sources(dir: &Path, out: &mut Vec<Source>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                sources(&path, out);
            }
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let src = src_dir();
        let rel = path.strip_prefix(&src).unwrap().with_extension("");
        let mut module: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if matches!(module.last().map(String::as_str), Some("mod")) {
            module.pop();
        }
        if module == ["main"] {
            continue; // the binary: not a module of the library
        }
        if module.is_empty() || module == ["lib"] {
            module = vec!["lib".to_string()];
        }
        let text = std::fs::read_to_string(&path).unwrap();
        out.push(Source {
            module,
            code: code_of(&text),
        });
    }
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The text without `//` comments and without the `#[cfg(test)]` module at the end.
fn code_of(text: &str) -> String {
    let end = text.find("#[cfg(test)]\nmod tests {").unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every module path a source names: `crate::a::b`, the paths inside `crate::{…}`, and
/// `super::x` (resolved against the source's own module), each as a list of names.
fn references(source: &Source) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let code = &source.code;
    for (start, _) in code.match_indices("crate::") {
        out.extend(paths_at(&code[start + "crate::".len()..], Vec::new()));
    }
    for (start, _) in code.match_indices("super::") {
        if start > 0 && code.as_bytes()[start - 1] == b':' {
            continue; // `super::super::` is read from its first `super`
        }
        let mut base = source.module.clone();
        let mut rest = &code[start..];
        // A file's own module is its parent's child: `super` in `a/b.rs` is `a`.
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        out.extend(paths_at(rest, base));
    }
    out
}

/// The paths written at the start of `text` (after `crate::` or `super::`), prefixed by `base`.
fn paths_at(text: &str, base: Vec<String>) -> Vec<Vec<String>> {
    let mut path = base;
    let mut rest = text;
    loop {
        if let Some(group) = rest.strip_prefix('{') {
            let end = matching_brace(group);
            return split_top(&group[..end])
                .into_iter()
                .flat_map(|item| paths_at(item.trim(), path.clone()))
                .collect();
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if name.is_empty() || name == "self" {
            return vec![path];
        }
        rest = &rest[name.len()..];
        path.push(name);
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => return vec![path],
        }
    }
}

fn matching_brace(text: &str) -> usize {
    let mut depth = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => return i,
            '}' => depth -= 1,
            _ => {}
        }
    }
    text.len()
}

fn split_top(text: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (Vec::new(), 0, 0);
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&text[start..]);
    out
}

/// The graph between the children of `parent` (`[]` for the top level): an arrow from the
/// child holding a source to the child it names, for sources below `parent` naming modules
/// below `parent`. The parent's own file (`mod.rs`), which declares and re-exports its
/// children, draws no arrows.
fn graph(all: &[Source], parent: &[String], known: &BTreeSet<Vec<String>>) -> Graph {
    let mut g = Graph::new();
    for s in all {
        if s.module.len() <= parent.len() || !s.module.starts_with(parent) {
            continue;
        }
        let from = s.module[parent.len()].clone();
        g.entry(from.clone()).or_default();
        for r in references(s) {
            if r.len() <= parent.len() || !r.starts_with(parent) {
                continue;
            }
            let to = r[parent.len()].clone();
            // Only modules (files or folders) count; `super::Item` names an item of the parent.
            let mut child = parent.to_vec();
            child.push(to.clone());
            if to != from && known.contains(&child) {
                g.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    g
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// A circle in `g`, if there is one.
fn circle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        n: &str,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|s| s == n) {
            let mut c = stack[i..].to_vec();
            c.push(n.to_string());
            return Some(c);
        }
        if done.contains(n) {
            return None;
        }
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(g, m, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        done.insert(n.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|n| visit(g, n, &mut Vec::new(), &mut done))
}

fn all_sources() -> (Vec<Source>, BTreeSet<Vec<String>>) {
    let mut all = Vec::new();
    sources(&src_dir(), &mut all);
    let mut known = BTreeSet::new();
    for s in &all {
        for i in 1..=s.module.len() {
            known.insert(s.module[..i].to_vec());
        }
    }
    (all, known)
}

fn show(g: &Graph) -> String {
    g.iter()
        .map(|(k, v)| {
            format!(
                "  {k} -> {}\n",
                v.iter().cloned().collect::<Vec<_>>().join(" ")
            )
        })
        .collect()
}

#[test]
fn arrows_between_top_level_modules_point_down_the_layers() {
    let (all, known) = all_sources();
    let top = graph(&all, &[], &known);
    println!("top level:\n{}", show(&top));
    let layer = |m: &str| {
        LAYERS
            .iter()
            .position(|l| l.contains(&m))
            .unwrap_or_else(|| panic!("module `{m}` is in no layer of tests/layers.rs"))
    };
    let mut wrong = Vec::new();
    for (from, tos) in &top {
        for to in tos {
            if layer(to) >= layer(from) {
                wrong.push(format!("{from} -> {to}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "arrows against the layers {LAYERS:?}: {wrong:?}"
    );
}

#[test]
fn no_folder_has_a_circle_between_its_files() {
    let (all, known) = all_sources();
    let folders: BTreeSet<Vec<String>> = all
        .iter()
        .filter(|s| s.module.len() >= 2)
        .flat_map(|s| (1..s.module.len()).map(|i| s.module[..i].to_vec()))
        .collect();
    let mut circles = Vec::new();
    for folder in &folders {
        let g = graph(&all, folder, &known);
        println!("{}/:\n{}", folder.join("/"), show(&g));
        if let Some(c) = circle(&g) {
            circles.push(format!("{}/: {}", folder.join("/"), c.join(" -> ")));
        }
    }
    assert!(circles.is_empty(), "circles: {circles:#?}");
}

#[test]
fn the_reader_sees_through_groups_and_super() {
    let s = Source {
        module: vec!["game".into(), "room".into(), "play".into()],
        code: code_of(
            "use crate::{clock::now_ms, store::{live::Write, Replica}};\nuse super::state::Room; // crate::net\nuse super::super::lobby::Lobby;\n#[cfg(test)]\nmod tests {\nuse crate::net::x;\n}",
        ),
    };
    let refs = references(&s);
    let has = |p: &[&str]| {
        refs.iter()
            .any(|r| r.starts_with(&p.iter().map(|s| s.to_string()).collect::<Vec<_>>()))
    };
    assert!(has(&["clock", "now_ms"]));
    assert!(has(&["store", "live", "Write"]));
    assert!(has(&["store", "Replica"]));
    assert!(has(&["game", "room", "state", "Room"]));
    assert!(has(&["game", "lobby", "Lobby"]));
    assert!(
        !has(&["net"]),
        "comments and the test module are not read: {refs:?}"
    );
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    assert_eq!(circle(&g), None);
    g.entry("b".into()).or_default().insert("a".into());
    assert_eq!(circle(&g), Some(vec!["a".into(), "b".into(), "a".into()]));
}
