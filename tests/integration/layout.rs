//! The house reads one way: the rooms of src/ and their floors are the README's "Layout"
//! table, every arrow (a `crate::` or `super::` path outside test code) runs down a floor,
//! no files import each other in a circle, no room holds more than a sixth of the code
//! outside tests, and no source file outside tests grows past 700 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MOST_LINES: usize = 700;

/// The largest share of src/'s lines outside tests one room may hold.
const MOST_SHARE: f64 = 1.0 / 6.0;

/// A module's path below the crate root: `src/bots/process/spawn.rs` is `bots::process::spawn`.
type ModPath = Vec<String>;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn mod_path(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: ModPath = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// A program a build makes over the library (`src/bin/`) or its build script: no room.
fn is_program(path: &ModPath) -> bool {
    matches!(path.first().map(String::as_str), Some("bin" | "build"))
}

/// A test module's file: its code may reach anything it tests.
fn is_test_file(path: &ModPath) -> bool {
    path.iter().any(|p| p == "tests" || p == "testgame")
}

/// `text` without comments and without the items marked `#[cfg(test)]`.
fn without_tests_and_comments(text: &str) -> String {
    let code: String = text
        .lines()
        .map(|line| match line.find("//") {
            Some(i) if !line[..i].contains('"') => &line[..i],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n");
    without_tests(&code)
}

/// The paths a `use` tree or an expression names after a `crate::`/`super::` prefix:
/// `a::{b, c::d}` is `a::b` and `a::c::d`.
fn paths_after(text: &str) -> Vec<ModPath> {
    fn tree(chars: &[char], at: &mut usize, prefix: &ModPath, out: &mut Vec<ModPath>) {
        let mut path = prefix.clone();
        loop {
            if chars.get(*at) == Some(&'{') {
                *at += 1;
                loop {
                    while chars
                        .get(*at)
                        .is_some_and(|c| c.is_whitespace() || *c == ',')
                    {
                        *at += 1;
                    }
                    if *at >= chars.len() || chars[*at] == '}' {
                        *at += 1;
                        return;
                    }
                    let before = *at;
                    tree(chars, at, &path, out);
                    if *at == before {
                        // Nothing a path is made of (`self`, `*`, `as` renames): skip it.
                        *at += 1;
                    }
                }
            }
            let start = *at;
            while *at < chars.len() && (chars[*at].is_alphanumeric() || chars[*at] == '_') {
                *at += 1;
            }
            if *at > start {
                path.push(chars[start..*at].iter().collect());
            }
            if *at > start && chars[*at..].starts_with(&[':', ':']) {
                *at += 2;
                continue;
            }
            if !path.is_empty() {
                out.push(path);
            }
            return;
        }
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    tree(&chars, &mut 0, &Vec::new(), &mut out);
    out
}

/// Each module and the modules it names.
type Arrows = BTreeMap<ModPath, BTreeSet<ModPath>>;

/// Every module each module's own code names, resolved to the longest module prefix.
fn arrows(src: &Path) -> (Arrows, Vec<(PathBuf, usize)>) {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let modules: BTreeSet<ModPath> = files.iter().map(|f| mod_path(src, f)).collect();
    let resolve = |path: &[String]| -> Option<ModPath> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut graph: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    let mut sizes = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let module = mod_path(src, file);
        sizes.push((file.clone(), text.lines().count()));
        if is_test_file(&module) || is_program(&module) {
            continue;
        }
        let code = without_tests_and_comments(&text);
        let targets = graph.entry(module.clone()).or_default();
        for (at, _) in code.match_indices("crate::") {
            if code[..at].ends_with('$') {
                continue;
            }
            for path in paths_after(&code[at + "crate::".len()..]) {
                targets.extend(resolve(&path));
            }
        }
        let mut at = 0;
        while let Some(found) = code[at..].find("super::") {
            let start = at + found;
            let mut ups = 0;
            let mut end = start;
            while code[end..].starts_with("super::") {
                ups += 1;
                end += "super::".len();
            }
            let boundary = start == 0 || {
                let c = code.as_bytes()[start - 1];
                !(c.is_ascii_alphanumeric() || c == b'_' || c == b':')
            };
            if boundary && ups <= module.len() {
                let base = module[..module.len() - ups].to_vec();
                for path in paths_after(&code[end..]) {
                    let full: ModPath = base.iter().cloned().chain(path).collect();
                    targets.extend(resolve(&full));
                }
            }
            at = end;
        }
        targets.remove(&module);
    }
    (graph, sizes)
}

/// The README's Layout table: room name to floor.
fn floors() -> BTreeMap<String, u32> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("\n## Layout")
        .nth(1)
        .expect("README.md has a \"## Layout\" section");
    let mut floors = BTreeMap::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if let [_, floor, room, ..] = cells.as_slice()
            && let (Ok(floor), Some(room)) = (
                floor.parse::<u32>(),
                room.strip_prefix('`').and_then(|r| r.strip_suffix('`')),
            )
        {
            floors.insert(room.to_string(), floor);
        }
    }
    assert!(
        !floors.is_empty(),
        "the README's Layout table lists no room"
    );
    floors
}

/// The graph with every module cut to its first `depth` names, without the arrows from a
/// module to the modules around it (a child naming its parent's items).
fn at_depth(
    graph: &BTreeMap<ModPath, BTreeSet<ModPath>>,
    depth: usize,
) -> BTreeMap<String, BTreeSet<String>> {
    let cut = |m: &ModPath| m[..m.len().min(depth)].join("::");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            let (a, b) = (cut(from), cut(to));
            if a != b && !from.starts_with(to) {
                out.entry(a).or_default().insert(b);
            }
        }
    }
    out
}

/// The circles of `graph`: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = graph
        .iter()
        .flat_map(|(a, bs)| std::iter::once(a).chain(bs))
        .collect();
    let reaches = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(n) = stack.pop() {
            for next in graph.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reaches(n))).collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    for n in &nodes {
        if !reach[n].contains(*n) || out.iter().any(|c| c.contains(n)) {
            continue;
        }
        let circle: Vec<String> = nodes
            .iter()
            .filter(|m| reach[n].contains(**m) && reach[*m].contains(*n))
            .map(|m| m.to_string())
            .collect();
        out.push(circle);
    }
    out
}

#[test]
fn every_room_is_in_the_readme_layout_and_every_arrow_runs_down() {
    let floors = floors();
    let (graph, _) = arrows(&repo().join("src"));
    let rooms = at_depth(&graph, 1);
    let mut on_disk: BTreeSet<String> = graph.keys().filter_map(|m| m.first().cloned()).collect();
    on_disk.extend(rooms.keys().cloned());
    let listed: BTreeSet<String> = floors.keys().cloned().collect();
    assert_eq!(
        on_disk, listed,
        "the rooms of src/ against the README's Layout table"
    );
    let mut upward = Vec::new();
    for (from, targets) in &rooms {
        for to in targets {
            if floors[from] <= floors[to] {
                upward.push(format!(
                    "{from} (floor {}) -> {to} (floor {})",
                    floors[from], floors[to]
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "arrows that do not run down a floor:\n  {}",
        upward.join("\n  ")
    );
}

#[test]
fn no_modules_import_each_other_in_a_circle() {
    let (graph, _) = arrows(&repo().join("src"));
    for depth in 1..=3 {
        let found = circles(&at_depth(&graph, depth));
        assert!(
            found.is_empty(),
            "import circles among the modules cut to depth {depth}: {found:?}"
        );
    }
}

#[test]
fn no_source_file_outside_tests_is_over_700_lines() {
    let src = repo().join("src");
    let (_, sizes) = arrows(&src);
    let long: Vec<String> = sizes
        .iter()
        .filter(|(file, lines)| *lines > MOST_LINES && !is_test_file(&mod_path(&src, file)))
        .map(|(file, lines)| format!("{} ({lines} lines)", file.display()))
        .collect();
    assert!(long.is_empty(), "files over {MOST_LINES} lines: {long:?}");
}

/// Each room's lines outside tests (test files and `#[cfg(test)]` items left out), the
/// programs over the library (`src/bin/`, the build script) apart.
fn room_sizes(src: &Path) -> BTreeMap<String, usize> {
    let mut files = Vec::new();
    source_files(src, &mut files);
    let mut sizes = BTreeMap::new();
    for file in files {
        let module = mod_path(src, &file);
        if is_test_file(&module) || is_program(&module) || module.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        *sizes.entry(module[0].clone()).or_insert(0) += without_tests(&text).lines().count();
    }
    sizes
}

/// `text` without the items marked `#[cfg(test)]` (comments kept: they are the room's).
fn without_tests(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at..];
        // The item ends at its first `;` before any brace, or at its braces' close.
        let Some(open) = item.find(['{', ';']) else {
            return out;
        };
        if item.as_bytes()[open] == b';' {
            rest = &item[open + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn no_room_holds_more_than_a_sixth_of_the_code() {
    let sizes = room_sizes(&repo().join("src"));
    let total: usize = sizes.values().sum();
    let large: Vec<String> = sizes
        .iter()
        .filter(|(_, lines)| **lines as f64 > MOST_SHARE * total as f64)
        .map(|(room, lines)| format!("{room}: {lines} of {total} lines"))
        .collect();
    assert!(
        large.is_empty(),
        "rooms over a sixth of src/ outside tests: {large:?}"
    );
    // The rooms the jail, the clocks and the class live in are their own.
    for room in ["jail", "clocks", "class", "bots"] {
        assert!(sizes.contains_key(room), "no room `{room}` in {sizes:?}");
    }
}

#[test]
fn the_checker_sees_the_arrows_and_circles_it_guards() {
    // A tree with an upward arrow hidden in a grouped `use`, a circle through `super::`,
    // and a test module whose arrows do not count.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |path: &str, text: &str| {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod low;\npub mod high;\n");
    write(
        "high/mod.rs",
        "pub mod a;\npub mod b;\nuse crate::low::Thing;\n",
    );
    write("high/a.rs", "use super::b::B;\npub struct A;\n");
    write("high/b.rs", "pub struct B(super::a::A);\n");
    write(
        "low.rs",
        "use crate::{error::E, high::{a::A, b}};\n#[cfg(test)]\nmod tests {\n    use crate::high::mod_b;\n}\n",
    );
    write(
        "error.rs",
        "// crate::high::a in a comment\npub struct E;\n",
    );
    let (graph, _) = arrows(src);
    let rooms = at_depth(&graph, 1);
    assert_eq!(
        rooms["low"],
        BTreeSet::from(["error".to_string(), "high".to_string()])
    );
    assert!(!rooms.contains_key("error"));
    assert_eq!(
        circles(&rooms),
        vec![vec!["high".to_string(), "low".to_string()]]
    );
    let files = at_depth(&graph, 2);
    assert!(
        circles(&files).contains(&vec!["high::a".to_string(), "high::b".to_string()]),
        "{:?}",
        circles(&files)
    );
}
