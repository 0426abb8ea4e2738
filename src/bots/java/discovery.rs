//! Finding a Java file's player class by reading its source: its package, its top-level
//! classes, and the chain of superclasses through its folder and the course environment
//! up to `GomokuPlayer`. No compiler is needed, so a folder of submissions can be named
//! and checked before any of it is compiled. A copy of one of the course's own classes
//! kept beside a student's player is told from the player the same way.

use super::environment::ENVIRONMENT_PLAYERS;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How far a chain of superclasses is followed to find `GomokuPlayer`.
pub(super) const MAX_SUPERCLASSES: usize = 32;

/// Java source with comments removed and string, text-block and character literals
/// emptied, so that what is left is code only (a `{` or `class` in a string is not one).
pub(super) fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(ch) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
            out.push(' ');
        } else if let Some(after) = rest.strip_prefix("\"\"\"") {
            rest = skip_literal(after, "\"\"\"");
            out.push_str("\"\"");
        } else if ch == '"' || ch == '\'' {
            let quote = &rest[..1];
            rest = skip_literal(&rest[1..], quote);
            out.push_str(quote);
            out.push_str(quote);
        } else {
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

/// The text after a literal's closing `end` (escapes skipped; an unterminated string or
/// character literal ends at its line's end, as javac would report it).
pub(super) fn skip_literal<'a>(text: &'a str, end: &str) -> &'a str {
    let mut chars = text.char_indices();
    while let Some((i, ch)) = chars.next() {
        if ch == '\\' {
            chars.next();
        } else if text[i..].starts_with(end) {
            return &text[i + end.len()..];
        } else if ch == '\n' && end.len() == 1 {
            return &text[i..];
        }
    }
    ""
}

/// Code split into words (identifiers, qualified names, keywords) and single symbols.
pub(super) fn tokens(code: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in code.char_indices() {
        if word(ch) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(&code[s..i]);
        }
        if !ch.is_whitespace() {
            out.push(&code[i..i + ch.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&code[s..]);
    }
    out
}

/// The package a Java source declares, if any (`package a.b;` before the first type).
pub(crate) fn package_of(source: &str) -> Option<String> {
    let code = code_only(source);
    let words = tokens(&code);
    // Annotations may come first (`@Deprecated package a;` in package-info only, but cheap).
    let at = words.iter().position(|w| *w == "package")?;
    if words[..at]
        .iter()
        .any(|w| ["class", "interface", "enum", "import", "record"].contains(w))
    {
        return None;
    }
    let name = *words.get(at + 1)?;
    let valid = words.get(at + 2) == Some(&";")
        && name.split('.').all(|part| {
            !part.is_empty()
                && !part.starts_with(|c: char| c.is_ascii_digit())
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
    valid.then(|| name.to_string())
}

/// A top-level class a source declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClassDecl {
    pub name: String,
    /// The class it extends, as written (`SequencePlayer`, `a.b.Base`).
    pub superclass: Option<String>,
    pub is_abstract: bool,
}

/// The top-level classes of a source (not interfaces, enums, records or nested classes).
pub(crate) fn top_level_classes(source: &str) -> Vec<ClassDecl> {
    let code = code_only(source);
    let words = tokens(&code);
    let mut found = Vec::new();
    let mut depth = 0usize;
    // Where the current top-level declaration's modifiers began.
    let mut since = 0;
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    since = i + 1;
                }
            }
            ";" if depth == 0 => since = i + 1,
            "class" if depth == 0 && i + 1 < words.len() => {
                let is_abstract = words[since..i].contains(&"abstract");
                let name = words[i + 1].to_string();
                let mut superclass = None;
                let mut angle = 0usize;
                let mut j = i + 2;
                while j < words.len() && words[j] != "{" {
                    match words[j] {
                        "<" => angle += 1,
                        ">" => angle = angle.saturating_sub(1),
                        "extends" if angle == 0 => {
                            superclass = words.get(j + 1).map(|w| w.to_string());
                        }
                        _ => {}
                    }
                    j += 1;
                }
                found.push(ClassDecl {
                    name,
                    superclass,
                    is_abstract,
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The folder javac resolves the player's classes from: its file's folder, or for a
/// player in package `a.b` kept in `…/a/b/`, the folder above `a`.
pub(crate) fn source_root(file: &Path, package: Option<&str>) -> PathBuf {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let Some(package) = package else {
        return folder;
    };
    let mut root = folder.as_path();
    for part in package.rsplit('.') {
        match (root.file_name(), root.parent()) {
            (Some(name), Some(parent)) if name == part => root = parent,
            _ => return folder,
        }
    }
    root.to_path_buf()
}

/// Where the class `name` (as a source of `package` writes it) would be found in `root`.
pub(super) fn source_file(root: &Path, package: Option<&str>, name: &str) -> PathBuf {
    let relative = match (name.contains('.'), package) {
        (true, _) => name.replace('.', "/"),
        (false, Some(p)) => format!("{}/{name}", p.replace('.', "/")),
        (false, None) => name.to_string(),
    };
    root.join(format!("{relative}.java"))
}

/// What javac can see of a player's folder besides the player's file: the source root, and
/// the classes of the player's package declared in files not named after them (`class
/// Node` in `Helpers.java`), which javac cannot find by name on the source path.
pub(super) struct Folder {
    pub(super) root: PathBuf,
    package: Option<String>,
    strays: BTreeMap<String, (PathBuf, ClassDecl)>,
}

impl Folder {
    pub(super) fn of(file: &Path, package: Option<&str>) -> Folder {
        let root = source_root(file, package);
        let dir = match package {
            Some(p) => root.join(p.replace('.', "/")),
            None => root.clone(),
        };
        let mut strays = BTreeMap::new();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.extension().is_some_and(|e| e == "java")
                    && p != file
                    && std::fs::symlink_metadata(p).is_ok_and(|m| m.is_file())
            })
            .collect();
        paths.sort();
        for path in paths {
            let Ok(bytes) = crate::untrusted::file::read_own_source(&path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            if package_of(&text).as_deref() != package {
                continue;
            }
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            for decl in top_level_classes(&text) {
                if decl.name != stem {
                    strays
                        .entry(decl.name.clone())
                        .or_insert_with(|| (path.clone(), decl));
                }
            }
        }
        Folder {
            root,
            package: package.map(str::to_string),
            strays,
        }
    }

    /// The declaration of the class `name` (as the player's package writes it) in the
    /// folder: in the file of its name, else a stray.
    fn find(&self, name: &str) -> Option<ClassDecl> {
        let simple = name.rsplit('.').next().unwrap_or(name);
        let path = source_file(&self.root, self.package.as_deref(), name);
        let named = own_source(&self.root, &path).and_then(|text| {
            top_level_classes(&String::from_utf8_lossy(&text))
                .into_iter()
                .find(|d| d.name == simple)
        });
        named.or_else(|| {
            (!name.contains('.'))
                .then(|| self.strays.get(simple).map(|(_, d)| d.clone()))
                .flatten()
        })
    }

    /// The files of strays the player's file uses, directly or through each other: javac
    /// must be given them, since it cannot find them by name.
    pub(super) fn strays_used(&self, source: &str) -> Vec<PathBuf> {
        let mut declared: std::collections::BTreeSet<String> = top_level_classes(source)
            .into_iter()
            .map(|d| d.name)
            .collect();
        let mut added: Vec<PathBuf> = Vec::new();
        let mut texts = vec![source.to_string()];
        while let Some(text) = texts.pop() {
            let code = code_only(&text);
            for word in tokens(&code) {
                // `Cells.last(b)` uses `Cells`.
                let name = word.split('.').next().unwrap_or(word);
                let Some((path, _)) = self.strays.get(name) else {
                    continue;
                };
                if declared.contains(name) || added.contains(path) {
                    continue;
                }
                let Ok(bytes) = crate::untrusted::file::read_own_source(path) else {
                    continue;
                };
                let helper = String::from_utf8_lossy(&bytes).into_owned();
                declared.extend(top_level_classes(&helper).into_iter().map(|d| d.name));
                added.push(path.clone());
                texts.push(helper);
            }
        }
        added.sort();
        added
    }
}

/// The bytes of the source `path` below the player's source root `root`, when no part of
/// it below `root` is a link: a class behind a link is not the folder's.
fn own_source(root: &Path, path: &Path) -> Option<Vec<u8>> {
    let rest = path.strip_prefix(root).ok()?;
    let mut at = root.to_path_buf();
    for part in rest.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at).ok()?.is_symlink() {
            return None;
        }
    }
    crate::untrusted::file::read_own_source(path).ok()
}

/// Whether a class extending `superclass` is a `GomokuPlayer`: the chain of superclasses
/// is followed through the player's own file, its folder (the player's classes win) and
/// the course environment.
pub(super) fn extends_player(
    superclass: &str,
    own: &[ClassDecl],
    folder: &Folder,
    depth: usize,
) -> bool {
    let simple = superclass.rsplit('.').next().unwrap_or(superclass);
    if simple == "GomokuPlayer" {
        return true;
    }
    if depth >= MAX_SUPERCLASSES {
        return false;
    }
    let mine = (!superclass.contains('.'))
        .then(|| own.iter().find(|d| d.name == simple).cloned())
        .flatten();
    match mine.or_else(|| folder.find(superclass)) {
        Some(ClassDecl {
            superclass: Some(up),
            ..
        }) => extends_player(&up, own, folder, depth + 1),
        Some(_) => false,
        None => ENVIRONMENT_PLAYERS.contains(&simple),
    }
}

/// Whether a Java file is one of the course's own classes (shipped in bots/java/, as
/// students keep them beside their player): named after one (`RandomPlayer.java`), its
/// class named as one, or a copy of one.
pub(crate) fn is_course_class(file: &std::path::Path) -> bool {
    let named = |name: &str| {
        super::environment::ENVIRONMENT
            .iter()
            .any(|(course, _)| *course == name)
    };
    if file.extension().is_none_or(|e| e != "java") {
        return false;
    }
    if file
        .file_stem()
        .is_some_and(|stem| named(&stem.to_string_lossy()))
    {
        return true;
    }
    let class = player_class(file).unwrap_or_default();
    if named(class.rsplit('.').next().unwrap_or_default()) {
        return true;
    }
    // A copy with other line endings is still the course's.
    let text = |t: &str| t.replace("\r\n", "\n").trim().to_string();
    crate::untrusted::file::read_source(file).is_ok_and(|bytes| {
        let copy = text(&String::from_utf8_lossy(&bytes));
        super::environment::ENVIRONMENT
            .iter()
            .any(|(_, source)| text(source) == copy)
    })
}

/// The player class of a Java file: the one top-level, non-abstract class in it that is a
/// `GomokuPlayer` (directly or through other classes), qualified by the file's package.
/// None or several is an error naming the file and the candidates.
pub fn player_class(file: &Path) -> Result<String, String> {
    let bytes = crate::untrusted::file::read_source(file)
        .map_err(|e| format!("cannot read `{}`: {e}", file.display()))?;
    let source = String::from_utf8_lossy(&bytes);
    let package = package_of(&source);
    let folder = Folder::of(file, package.as_deref());
    let classes = top_level_classes(&source);
    let players: Vec<&ClassDecl> = classes
        .iter()
        .filter(|c| {
            !c.is_abstract
                && c.superclass
                    .as_deref()
                    .is_some_and(|s| extends_player(s, &classes, &folder, 0))
        })
        .collect();
    let names = |list: &[&ClassDecl]| {
        list.iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match players.as_slice() {
        [one] => Ok(match &package {
            Some(p) => format!("{p}.{}", one.name),
            None => one.name.clone(),
        }),
        [] => {
            let all: Vec<&ClassDecl> = classes.iter().collect();
            let listed = if all.is_empty() {
                "it declares no top-level class".to_string()
            } else {
                format!("its top-level classes: {}", names(&all))
            };
            Err(format!(
                "`{}` declares no player: no top-level, non-abstract class in it extends \
                 GomokuPlayer (directly or through another class such as SequencePlayer); {listed}",
                file.display()
            ))
        }
        several => Err(format!(
            "`{}` declares several players ({}): keep one top-level GomokuPlayer class per file",
            file.display(),
            names(several)
        )),
    }
}

/// A Java player's default name: its player class's simple name, else the file's stem.
pub fn default_name(file: &Path) -> String {
    match player_class(file) {
        Ok(class) => class.rsplit('.').next().unwrap_or(&class).to_string(),
        Err(_) => file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}
