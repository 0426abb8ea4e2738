//! A folder of submissions as a source of bots: each entry of the folder is one team's
//! bot, found the way the course hands them in.
//!
//! An entry is a course bot file (`TeamXX.py`, a Gomoku `.java` player), a subfolder holding
//! one team's submission with its helper files, or a `.zip` of such a subfolder. A zip is
//! extracted once into a private folder (the caller chooses where: beside a tournament's
//! results), and extracted again only when the archive changes, so a resumed tournament
//! sees the same files and the same digests. An entry whose bot cannot be identified is
//! not an error here: it is returned with the reason, and the caller decides whether that
//! stops the run.

use super::platform;
use super::unpack::{gather, sha256_of, unpack};
use played::{played_entry, within};

use crate::bots::spec::{BotSpec, is_agent_file};
use crate::error::Error;
use crate::games::GameKind;
use std::path::{Path, PathBuf};

/// One bot found in the folder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// The entry's file stem or folder name.
    pub name: String,
    /// The entry in the submissions folder (the file, subfolder or zip).
    pub entry: PathBuf,
    /// The course bot file that runs (inside the extracted folder for a zip).
    pub file: PathBuf,
    /// The bot file's path within its entry when the entry is a folder or a zip
    /// (`Team05.py`, `src/Team05.py`): the file that played, as its team knows it. None
    /// when the entry is the file.
    pub inside: Option<String>,
}

/// An entry that is left out, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The name its bot would have had: the entry's file stem or folder name.
    pub name: String,
    /// The entry in the submissions folder (the file, subfolder or zip).
    pub entry: PathBuf,
    /// Why it is left out, in words for the teacher and the team's row.
    pub reason: String,
}

/// An entry holding the same submission as a bot's entry (its files byte for byte, under
/// the same team name): the two students of a team who both handed it in, a platform's
/// folder each. It plays as that one bot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Same {
    /// The bot's name.
    pub name: String,
    /// The entry the bot runs from.
    pub kept: PathBuf,
    /// The entry that holds the same files.
    pub entry: PathBuf,
}

/// Different submissions that came under one team's name, each told apart by its student.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clash {
    /// The name they all came under (`Team06`).
    pub name: String,
    /// Each entry: where it lies and its student, as the platform names them.
    pub entries: Vec<Handed>,
}

/// One entry of a [`Clash`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handed {
    /// The entry in the submissions folder (a student's folder or flat file).
    pub entry: PathBuf,
    /// The bot's file, for messages (`Team06.py`).
    pub file: PathBuf,
    /// The student as the platform names them (`Ana Pérez_12345`); none for an entry no
    /// platform named, which keeps the team's name.
    pub student: Option<String>,
}

/// What a folder holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Submissions {
    /// The entries whose bot was found: they play.
    pub bots: Vec<Found>,
    /// Entries that look like a submission but cannot play: each keeps a row with its reason.
    pub skipped: Vec<Skipped>,
    /// Entries that repeat a bot's submission, byte for byte: they play as that bot.
    pub same: Vec<Same>,
    /// Entries that are no submission (a README, notes, a platform's receipt or
    /// online-text folder, an empty folder, a data file): no team, no mark.
    pub ignored: Vec<Skipped>,
    /// Different submissions that came under one team's name, told apart by their
    /// students: each bot plays under its student's name until a roster gives its team.
    pub clashes: Vec<Clash>,
}

impl Found {
    /// The bot's spec: a course Python bot under `python`, a Java player, or an Advance
    /// console program (a C# project's folder, or an executable file).
    pub fn spec(&self, python: Option<&str>) -> BotSpec {
        if self.file.extension().is_some_and(|e| e == "csproj") {
            let folder = self.file.parent().unwrap_or(Path::new(".")).to_path_buf();
            BotSpec::ConsoleProject(folder)
        } else if is_executable(&self.file) && self.file.extension().is_none_or(|e| e != "py") {
            // The program by its absolute path: it runs in its own folder, where a path
            // relative to the harness's (`class/Team01`) would name nothing.
            let file = std::path::absolute(&self.file).unwrap_or_else(|_| self.file.clone());
            let mut command = crate::bots::spec::CommandSpec::new(file.to_string_lossy());
            command.cwd = self.file.parent().map(Path::to_path_buf);
            BotSpec::Console(command)
        } else if self.file.extension().is_some_and(|e| e == "java") {
            BotSpec::CourseJava {
                file: self.file.clone(),
            }
        } else {
            BotSpec::CoursePython {
                file: self.file.clone(),
                python: python.map(str::to_string),
            }
        }
    }
}

/// The entries of `folder` whose names match `pattern`, each identified as a bot of `game`
/// or skipped with the reason, before their names are settled ([`super::scan`]).
pub(super) fn entries(
    folder: &Path,
    game: GameKind,
    pattern: Option<&str>,
    unpack_to: &Path,
) -> Result<Submissions, Error> {
    let unreadable = |path: &Path, source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| unreadable(folder, e))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = file_name(p);
            !name.starts_with('.')
                && name != "__pycache__"
                && pattern.is_none_or(|pat| wildcard(pat, &name))
        })
        .collect();
    entries.sort();
    let mut found = Submissions::default();
    // Each bot's entry name, which it goes by when its file's name is another bot's too.
    let mut fallbacks = Vec::new();
    // The files of a flat download (Canvas, Blackboard), by student.
    let mut flat: std::collections::BTreeMap<String, Vec<(u32, PathBuf, String)>> =
        Default::default();
    for entry in entries {
        let name = file_name(&entry);
        let is_file = std::fs::symlink_metadata(&entry).is_ok_and(|m| m.is_file());
        if let Some(f) = platform::flat_name(&name).filter(|_| is_file) {
            match f.original {
                Some(original) => flat
                    .entry(f.student)
                    .or_default()
                    .push((f.upload, entry, original)),
                None => found.ignored.push(Skipped {
                    name: stem_of(&entry),
                    entry,
                    reason: "a platform's receipt, not a submission".into(),
                }),
            }
            continue;
        }
        if let Some(reason) = platform::not_a_submission(&entry) {
            found.ignored.push(Skipped {
                name: stem_of(&entry),
                entry,
                reason: reason.into(),
            });
            continue;
        }
        let stem = entry
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name.clone());
        let extension = entry
            .extension()
            .map(|e| e.to_string_lossy().to_lowercase())
            .unwrap_or_default();
        let identified = if entry.is_dir() {
            let goes_by = folder_goes_by(&entry, &name, game);
            match lone_zip(&entry) {
                // A learning platform's "download all": a folder per student holding the
                // zip they handed in.
                Some(zip) => {
                    let target = unpack_to.join(&name);
                    unpack(&zip, &target)
                        .map_err(|why| format!("{}: cannot be unpacked: {why}", file_name(&zip)))
                        .and_then(|()| identify(&target, game))
                }
                None => identify(&entry, game),
            }
            .map(|file| (team_name(&goes_by, &file, game), file))
        } else if let Err(e) = crate::untrusted::file::open_regular(&entry) {
            // A FIFO or a device is never opened for reading, which could block forever.
            Err(format!("cannot be read: {e}"))
        } else if extension == "zip" {
            let target = unpack_to.join(&stem);
            unpack(&entry, &target)
                .map_err(|why| format!("cannot be unpacked: {why}"))
                .and_then(|()| identify(&target, game))
                .map(|file| (team_name(&stem, &file, game), file))
        } else if is_bot_file(&entry, game) {
            Ok((stem.clone(), entry.clone()))
        } else {
            Err(format!("not a bot: expected {}", bot_file_kind(game)))
        };
        match identified {
            Ok((team, file)) => {
                fallbacks.push(if entry.is_dir() { name } else { stem });
                found.bots.push(Found {
                    name: team,
                    inside: within(&entry, &file, unpack_to),
                    entry,
                    file,
                });
            }
            Err(reason) => found.skipped.push(Skipped {
                name: match entry.is_dir() {
                    true => folder_goes_by(&entry, &name, game),
                    false => stem,
                },
                entry,
                reason,
            }),
        }
    }
    // A loose file named after a loose bot (`Team01_utils.py` beside `Team01.py`) is its
    // team's helper, no team of its own: the bot reads it (`own`).
    let loose: Vec<String> = found
        .bots
        .iter()
        .filter(|b| b.entry == b.file)
        .map(|b| stem_of(&b.file))
        .collect();
    for s in std::mem::take(&mut found.skipped) {
        let team = loose.iter().find(|b| named_after(&s.entry, b));
        match team.filter(|_| !s.entry.is_dir() && !is_zip(&s.entry)) {
            Some(team) => found.ignored.push(Skipped {
                reason: format!("a helper of {team} (named after it), not a submission"),
                ..s
            }),
            None => found.skipped.push(s),
        }
    }
    for (student, mut files) in flat {
        // The last upload of a file is the one kept: gathered last.
        files.sort_by_key(|(upload, _, _)| *upload);
        let files: Vec<(PathBuf, String)> = files.into_iter().map(|(_, p, o)| (p, o)).collect();
        let entry = files[0].0.clone();
        let target = unpack_to.join(&student);
        let identified = gather(&files, &target).and_then(|()| match lone_zip(&target) {
            Some(zip) => {
                let inner = unpack_to.join(format!("{student}.unzipped"));
                unpack(&zip, &inner)
                    .map_err(|why| format!("{}: cannot be unpacked: {why}", file_name(&zip)))
                    .and_then(|()| identify(&inner, game))
            }
            None => identify(&target, game),
        });
        let goes_by = match files.as_slice() {
            [(_, original)] => stem_of(Path::new(original)),
            _ => student.clone(),
        };
        match identified {
            Ok(file) => {
                fallbacks.push(student);
                let entry = played_entry(&files, &target, &file);
                found.bots.push(Found {
                    name: team_name(&goes_by, &file, game),
                    inside: within(&entry, &file, unpack_to),
                    entry,
                    file,
                });
            }
            Err(reason) => found.skipped.push(Skipped {
                name: goes_by,
                entry: meant_entry(&files, game).unwrap_or(entry),
                reason,
            }),
        }
    }
    // The same submission handed in twice (by both students of a team) is one bot.
    let mut bots: Vec<(Found, String)> = Vec::new();
    for (bot, fallback) in std::mem::take(&mut found.bots).into_iter().zip(fallbacks) {
        match bots
            .iter()
            .find(|(kept, _)| one_name(&kept.name, &bot.name) && same_files(kept, &bot, folder))
        {
            Some((kept, _)) => found.same.push(Same {
                name: kept.name.clone(),
                kept: kept.entry.clone(),
                entry: bot.entry,
            }),
            None => bots.push((bot, fallback)),
        }
    }
    // A name several bots share goes back to each one's entry name, except an Asalto
    // team's: a `TeamXX.py` names its team, so two different files of one team are told
    // apart by their students, or are an error, whatever folders they came in (`scan`).
    let clashing: Vec<bool> = bots
        .iter()
        .map(|(b, _)| {
            bots.iter()
                .filter(|(o, _)| one_name(&o.name, &b.name))
                .count()
                > 1
        })
        .collect();
    for ((bot, fallback), clash) in bots.iter_mut().zip(clashing) {
        if clash && game != GameKind::Asalto {
            bot.name = std::mem::take(fallback);
        }
    }
    found.bots = bots.into_iter().map(|(bot, _)| bot).collect();
    Ok(found)
}

/// The file of a student's flat download that was meant as the team's bot when none could
/// play, for the teacher and the team to be told of: the last upload of a zip or of a file
/// named as a bot of `game` is (a `Team*.py`, a `.java`, an `a3_agent.py`), a helper never.
fn meant_entry(files: &[(PathBuf, String)], game: GameKind) -> Option<PathBuf> {
    let meant = |original: &str| {
        let name = original.to_lowercase();
        is_zip(Path::new(&name))
            || match game {
                GameKind::Asalto => name.starts_with("team") && name.ends_with(".py"),
                GameKind::Gomoku => name.ends_with(".java"),
                GameKind::Hinger => is_agent_file(Path::new(&name)),
                GameKind::Advance | GameKind::Battle => false,
            }
    };
    files
        .iter()
        .rev()
        .find(|(_, original)| meant(original))
        .map(|(path, _)| path.clone())
}

/// Whether `entry` is named as the bot `own`'s: its name, case aside, is `own`, or `own`
/// followed by `_`, `-` or `.` (`Team11_utils.py` is Team11's, `Team110.py` is not).
pub(super) fn named_after(entry: &Path, own: &str) -> bool {
    let (name, own) = (file_name(entry).to_lowercase(), own.to_lowercase());
    name.strip_prefix(&own)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['_', '-', '.']))
}

/// Whether two bot names are one team's: names that differ only in case are.
pub(super) fn one_name(a: &str, b: &str) -> bool {
    a.to_lowercase() == b.to_lowercase()
}

/// Whether two bots hold the same files: the same bot file, and for bots in folders of
/// their own (not loose in the submissions `folder`), the same files beside it.
fn same_files(a: &Found, b: &Found, folder: &Path) -> bool {
    let hash = |file: &Path| sha256_of(file).ok();
    let bot_file = hash(&a.file);
    if bot_file.is_none() || bot_file != hash(&b.file) {
        return false;
    }
    let own_folder = |bot: &Found| {
        bot.file
            .parent()
            .filter(|p| *p != folder)
            .map(Path::to_path_buf)
    };
    let beside = |dir: &Path| -> Option<Vec<(String, String)>> {
        own_files(dir)
            .iter()
            .filter(|f| !f.is_dir())
            .map(|f| Some((file_name(f), hash(f)?)))
            .collect()
    };
    match (own_folder(a), own_folder(b)) {
        (None, None) => true,
        (Some(x), Some(y)) => beside(&x).is_some_and(|files| Some(files) == beside(&y)),
        _ => false,
    }
}

/// A team's name as its files say: an Asalto `TeamXX.py` names its team (`Team12`, even in
/// a folder `team12`); otherwise `fallback`, the entry's (or its zip's) name. A Hinger
/// agent is always `a3_agent.py`, so its folder names it.
fn team_name(fallback: &str, file: &Path, game: GameKind) -> String {
    let stem = stem_of(file);
    if game == GameKind::Asalto && stem.to_lowercase().starts_with("team") {
        stem
    } else {
        fallback.to_string()
    }
}

/// The name a folder entry `name` goes by: when it holds nothing but its submission (a
/// zip, a bot file or a team's file, as a platform's folder per student does), that file's
/// stem; else its own name. A Hinger agent is always `a3_agent.py`: it names no team.
fn folder_goes_by(folder: &Path, name: &str, game: GameKind) -> String {
    let names_team = |file: &Path| {
        is_zip(file)
            || (game != GameKind::Hinger
                && (file_name(file).to_lowercase().starts_with("team") || is_candidate(file, game)))
    };
    match lone_file(folder) {
        Some(file) if names_team(&file) => stem_of(&file),
        _ => name.to_string(),
    }
}

pub(super) fn stem_of(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

pub(super) fn is_zip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("zip"))
}

/// The files of `folder` a submission could consist of: not hidden, not a platform's or an
/// archiver's leftovers.
pub(super) fn own_files(folder: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let name = file_name(p);
            !name.starts_with('.') && name != "__pycache__" && name != "__MACOSX"
        })
        .collect();
    files.sort();
    files
}

/// The one regular file `folder` holds, when it holds nothing else.
fn lone_file(folder: &Path) -> Option<PathBuf> {
    match own_files(folder).as_slice() {
        [one] if std::fs::symlink_metadata(one).is_ok_and(|m| m.is_file()) => Some(one.clone()),
        _ => None,
    }
}

/// The zip `folder` holds when it holds nothing else (a platform's folder per student).
pub(super) fn lone_zip(folder: &Path) -> Option<PathBuf> {
    lone_file(folder).filter(|f| is_zip(f))
}

pub(super) fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What a course bot of `game` is, for messages.
fn bot_file_kind(game: GameKind) -> &'static str {
    match game {
        GameKind::Asalto => "a Team*.py file with a `Player` class, a folder or a .zip",
        GameKind::Hinger => "a team's folder (with its a3_agent.py) or a .zip",
        GameKind::Gomoku => "a .java file with a GomokuPlayer class, a folder or a .zip",
        GameKind::Advance => {
            "an executable console program, a folder with a C# *.csproj or one program, or a .zip"
        }
        GameKind::Battle => "none: Battle bots are named one by one",
    }
}

/// Whether a loose file of the folder is itself a bot: what a team's folder must hold
/// (a Hinger agent, named `a3_agent.py` by every team, always comes in its team's folder).
fn is_bot_file(file: &Path, game: GameKind) -> bool {
    game != GameKind::Hinger && is_candidate(file, game)
}

/// The one course bot of `game` in a team's folder, else why there is none. A folder that
/// holds nothing but one subfolder (the usual shape of a zip) is looked into.
pub(super) fn identify(folder: &Path, game: GameKind) -> Result<PathBuf, String> {
    let mut files = Vec::new();
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(folder)
        .map_err(|e| format!("cannot read the folder: {e}"))?
        .flatten()
    {
        let path = entry.path();
        let name = file_name(&path);
        if name.starts_with('.') || name == "__pycache__" || name == "__MACOSX" {
            continue;
        }
        if path.is_dir() {
            folders.push(path);
        } else {
            files.push(path);
        }
    }
    files.sort();
    let mut candidates: Vec<&PathBuf> = files.iter().filter(|f| is_candidate(f, game)).collect();
    // The one team file of a folder is its bot even when its `Player` is bound in a way
    // the text does not show: the check and the games say what is wrong with it, if
    // anything.
    let team_files: Vec<&PathBuf> = files.iter().filter(|f| is_team_file(f)).collect();
    if game == GameKind::Asalto && candidates.is_empty() && team_files.len() == 1 {
        candidates = team_files;
    }
    // Students keep the course's own players (`RandomPlayer.java`) beside theirs: those
    // are the course's, and the team's player is the other one.
    let course: Vec<&PathBuf> = match game {
        GameKind::Gomoku => candidates
            .iter()
            .copied()
            .filter(|f| crate::bots::java::is_course_class(f))
            .collect(),
        _ => Vec::new(),
    };
    if course.len() < candidates.len() {
        candidates.retain(|f| !course.contains(f));
    } else if course.len() > 1 {
        return Err(format!(
            "no bot of the team's: only the course's own players ({}): {}",
            course
                .iter()
                .map(|f| file_name(f))
                .collect::<Vec<_>>()
                .join(", "),
            wanted(game)
        ));
    }
    match candidates.as_slice() {
        [one] => Ok((*one).clone()),
        [] if files.is_empty() && folders.len() == 1 => identify(&folders[0], game),
        [] => Err(format!("no bot: {}", wanted(game))),
        several => Err(format!(
            "several candidates ({}): {}",
            several
                .iter()
                .map(|f| file_name(f))
                .collect::<Vec<_>>()
                .join(", "),
            wanted(game)
        )),
    }
}

/// What a team's folder must hold exactly one of.
fn wanted(game: GameKind) -> &'static str {
    match game {
        GameKind::Asalto => "expected exactly one Team*.py file with a `Player` class",
        GameKind::Hinger => "expected exactly one a3_agent.py",
        GameKind::Gomoku => "expected exactly one .java file with a GomokuPlayer class",
        GameKind::Advance => {
            "expected exactly one C# project (*.csproj) or one executable console program"
        }
        GameKind::Battle => "a folder of submissions is not read for Battle: name each bot",
    }
}

/// An Asalto team's file by its name: `Team*.py`, in any case.
fn is_team_file(file: &Path) -> bool {
    let name = file_name(file);
    name.to_lowercase().starts_with("team") && name.ends_with(".py")
}

pub(super) fn is_candidate(file: &Path, game: GameKind) -> bool {
    match game {
        GameKind::Asalto => {
            is_team_file(file)
                && crate::untrusted::file::read_source(file)
                    .is_ok_and(|bytes| defines_player(&String::from_utf8_lossy(&bytes)))
        }
        GameKind::Hinger => is_agent_file(file),
        GameKind::Gomoku => {
            file.extension().is_some_and(|e| e == "java")
                && crate::bots::java::player_class(file).is_ok()
        }
        // The course's console programs are C# projects; a built program is any executable.
        GameKind::Advance => {
            file.extension().is_some_and(|e| e == "csproj")
                || (is_executable(file) && file.extension().is_none_or(|e| e != "py"))
        }
        GameKind::Battle => false,
    }
}

/// A file anyone may execute: a built console program.
fn is_executable(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Whether Python source binds `Player` at its top level, as far as its text shows: a
/// `class Player` (any spacing), an assignment `Player = ...`, a `def Player`, or an
/// import that names it (`from impl import Player`, `import x as Player`, also on the
/// continuation lines of a parenthesised import).
fn defines_player(source: &str) -> bool {
    let is_name_char = |c: char| c.is_alphanumeric() || c == '_';
    // `Player` as a whole word in `text`.
    let names_player = |text: &str| {
        text.match_indices("Player").any(|(at, _)| {
            !text[..at].ends_with(is_name_char) && !text[at + 6..].starts_with(is_name_char)
        })
    };
    let mut in_import = false;
    source.lines().any(|line| {
        let code = line.split('#').next().unwrap_or_default();
        if in_import {
            in_import = !code.contains(')');
            return names_player(code);
        }
        if code.starts_with(char::is_whitespace) {
            return false;
        }
        let mut words = code.split_whitespace();
        let first = words.next().unwrap_or_default();
        let rest = code[first.len()..].trim_start();
        match first {
            "class" | "def" => rest
                .strip_prefix("Player")
                .is_some_and(|after| after.trim_start().starts_with(['(', ':'])),
            "from" | "import" => {
                in_import = code.contains('(') && !code.contains(')');
                names_player(code.split(" import ").nth(1).unwrap_or(code))
                    && (first == "from" || code.contains(" as "))
            }
            _ => code.strip_prefix("Player").is_some_and(|after| {
                let after = after.trim_start();
                after.starts_with('=') && !after.starts_with("==") || after.starts_with(':')
            }),
        }
    })
}

/// `*` matches any run of characters, `?` one character; everything else itself.
fn wildcard(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<char>, Vec<char>) = (pattern.chars().collect(), text.chars().collect());
    // The classic backtracking match: remember the last `*` and retry one character later.
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

/// The one course bot of a folder given as one team's (its bot file at its top, beside its
/// helpers and data, and no other team's submission in it), else none: then it is a
/// folder of submissions.
pub fn team_folder(folder: &Path, game: GameKind) -> Option<Found> {
    let files = own_files(folder);
    let holds_submissions = files.iter().any(|f| {
        is_zip(f) || (f.is_dir() && identify(f, game).is_ok()) || {
            let name = file_name(f);
            platform::flat_name(&name).is_some()
        }
    });
    let bots: Vec<&PathBuf> = files
        .iter()
        .filter(|f| !f.is_dir() && is_candidate(f, game))
        .collect();
    match bots.as_slice() {
        [one] if !holds_submissions => {
            let name = file_name(folder);
            Some(Found {
                name: team_name(&name, one, game),
                entry: folder.to_path_buf(),
                file: (*one).clone(),
                inside: Some(file_name(one)),
            })
        }
        _ => None,
    }
}

mod played;
#[cfg(test)]
mod tests;
