//! Folders of submissions on the command line and in tournaments.toml, `arbiter check`,
//! and the preflight check of `league --check` and `run --check`.

use super::games::GameOptions;
use super::options::{cli_entrant, jobs_or_cores, parse_spec};
use crate::bots::spec::{BotSpec, Confinement};
use crate::class::{self, Submissions};
use crate::engines::Builtins;
use crate::error::Error;
use crate::games::GameKind;
use crate::games::registry::with_game;
use crate::tournament::journal::{LeftOut, Merged};
use crate::tournament::preflight;
use crate::tournament::{Entrant, Tournament};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

// Options of the tournament commands about folders of submissions and the preflight.
#[derive(clap::Args, Debug, Default)]
pub(crate) struct SubmissionOptions {
    /// Stop before any game when an entry of a submissions folder is not a bot.
    #[arg(long)]
    pub strict: bool,
    /// Check every bot first (as `arbiter check`): a bot that fails is left out of the
    /// games (mark 0, its failure in marks.csv and its feedback) and the others play; with
    /// fewer than two passing, no game is played.
    #[arg(long)]
    pub check: bool,
}

// `check` takes what changes how a bot starts and answers, nothing about whole games
// (their round limit, start boards or seeds).
#[derive(clap::Args, Debug)]
pub(crate) struct CheckArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "asalto")]
    pub game: GameKind,
    /// Bots checked at once (default: the number of cores).
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// The move time limit in milliseconds.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit_ms: u64,
    /// The start-up handshake limit in milliseconds.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub init_limit_ms: u64,
    /// The interpreter of course-style `.py` bots (default: python3).
    #[arg(long)]
    pub python: Option<String>,
    #[command(flatten)]
    pub confine: super::confine::ConfineArgs,
    /// Stop before checking when an entry of a submissions folder is not a bot.
    #[arg(long)]
    pub strict: bool,
    /// The bots: `NAME=SPEC`, a SPEC, or a folder of submissions.
    #[arg(required = true, num_args = 1..)]
    pub bots: Vec<String>,
}

/// The folder of a tournament's output folder where zips of submissions are extracted.
pub(crate) const UNPACKED_DIR: &str = "unpacked";

/// Where the zips of the submissions folder `folder` are extracted for a run whose
/// results go to `out`: one private folder per submissions folder.
pub(crate) fn unpack_dir(out: &Path, folder: &Path) -> PathBuf {
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "submissions".into());
    out.join(UNPACKED_DIR).join(name)
}

/// What the bots named on a command line or in tournaments.toml come to.
#[derive(Debug, Default)]
pub(crate) struct Entries {
    pub entrants: Vec<Entrant>,
    /// The entries of submissions folders that are not bots.
    pub left_out: Vec<LeftOut>,
    /// The entries of submissions folders that hold a bot's files byte for byte.
    pub merged: Vec<Merged>,
    /// Each entry of a submissions folder a team's submission came in, by the team's name
    /// (a bot's or a left-out entry's): a platform's folder or file names its student.
    pub handed_in: Vec<(String, String)>,
}

/// The bots of a submissions folder, and its entries left out, printed (or, when
/// `strict`, an error listing them); submissions named after one team go by their students'
/// teams in the `roster` (read from its path). `shown` is the folder as the user wrote it,
/// which each bot's spec in the journal is written under.
pub(crate) fn folder_entrants(
    folder: &Path,
    shown: &str,
    game: GameKind,
    pattern: Option<&str>,
    unpack_to: &Path,
    python: Option<&str>,
    (strict, roster): (bool, Option<(&class::Roster, &Path)>),
) -> Result<Entries, Error> {
    let mut found = class::scan(folder, game, pattern, unpack_to)?;
    // Submissions named after one team, told apart by their students: a roster gives each
    // its student's team before the league sees their names.
    let attributed = match roster {
        Some((roster, path)) => found.attribute(roster, path)?,
        None => Vec::new(),
    };
    for clash in &found.clashes {
        for line in clash.lines(&found.bots) {
            note!("{line}");
        }
    }
    for line in &attributed {
        note!("{line}");
    }
    if roster.is_none() && !found.clashes.is_empty() {
        note!(
            "  each plays under its student's name: give --roster (with the platform's \
             student ids) to mark each as its student's team"
        );
    }
    let Submissions {
        bots,
        skipped,
        same,
        ignored,
        clashes: _,
    } = found;
    let entry_name = |path: &Path| {
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    // A merged entry plays as the bot it repeats, under that bot's name as settled (a
    // student's, a roster's team), so its student's id names that team.
    let merged_name = |s: &class::Same| {
        bots.iter()
            .find(|b| b.entry == s.kept)
            .map_or(s.name.clone(), |b| b.name.clone())
    };
    let mut handed_in: Vec<(String, String)> = bots
        .iter()
        .map(|b| (b.name.clone(), entry_name(&b.entry)))
        .chain(same.iter().map(|s| (merged_name(s), entry_name(&s.entry))))
        .collect();
    // A folder with nothing in it is a mistyped or not yet filled folder, not a class with
    // no bot: a league of the rest, or a check of nothing, would look like success.
    if bots.is_empty() && skipped.is_empty() && same.is_empty() && ignored.is_empty() {
        let what = match pattern {
            Some(pattern) => format!("no entry of it matches `{pattern}`"),
            None => "it holds no file or folder (hidden ones and __pycache__ aside)".into(),
        };
        return Err(Error::usage(format!(
            "folder of submissions `{shown}`: {what}"
        )));
    }
    let names: Vec<&str> = bots.iter().map(|b| b.name.as_str()).collect();
    note!(
        "{} bot{} in {shown}: {}",
        bots.len(),
        if bots.len() == 1 { "" } else { "s" },
        names.join(", ")
    );
    for s in &same {
        note!(
            "  {} holds the same files as {}: one bot, {}",
            s.entry.display(),
            s.kept.display(),
            merged_name(s)
        );
    }
    for s in &skipped {
        note!("  left out {}: {}", s.entry.display(), s.reason);
    }
    for s in &ignored {
        note!("  ignored {}: {}", s.entry.display(), s.reason);
    }
    if strict && !skipped.is_empty() {
        return Err(Error::usage(format!(
            "--strict: {} entr{} of {shown} {} not a bot (listed above); no game was played",
            skipped.len(),
            if skipped.len() == 1 { "y" } else { "ies" },
            if skipped.len() == 1 { "is" } else { "are" },
        )));
    }
    let folder_shown = shown.trim_end_matches('/');
    let merged = same
        .iter()
        .map(|s| Merged {
            name: merged_name(s),
            entry: format!("{folder_shown}/{}", entry_name(&s.entry)),
        })
        .collect();
    let left_out = skipped
        .iter()
        .map(|s| {
            let entry = s
                .entry
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let mut name = s.name.clone();
            // Never the name of a bot that plays: the row must be told apart.
            while bots.iter().any(|b| b.name == name) {
                name.push('?');
            }
            handed_in.push((name.clone(), entry.clone()));
            LeftOut {
                name,
                entry: format!("{folder_shown}/{entry}"),
                reason: s.reason.clone(),
            }
        })
        .collect();
    let mut entrants = Vec::new();
    for bot in bots {
        entrants.push(found_entrant(bot, folder_shown, python)?);
    }
    Ok(Entries {
        entrants,
        left_out,
        merged,
        handed_in,
    })
}

/// A bot found in a submissions folder (or a team's folder), as an entrant whose spec in the
/// journal is `FOLDER/ENTRY` as written.
fn found_entrant(
    bot: class::Found,
    folder_shown: &str,
    python: Option<&str>,
) -> Result<Entrant, Error> {
    let file = bot.file.to_string_lossy().into_owned();
    // Through the same parser as a file named by hand, so the interpreter is resolved
    // alike.
    let spec = match bot.spec(None) {
        BotSpec::CoursePython { .. } => parse_spec(&shlex_quote(&file), python)?,
        other => other,
    };
    let entry = bot
        .entry
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Entrant {
        name: bot.name,
        // Stable across runs: the folder as written and the entry's name.
        spec_text: match folder_shown.is_empty() {
            true => entry,
            false => format!("{folder_shown}/{entry}"),
        },
        spec,
        cwd: None,
        env: BTreeMap::new(),
        confine: Default::default(),
        non_scoring: false,
        file: bot.inside,
    })
}

/// A folder named on the command line as one team's (its bot at its top, beside its
/// helpers and data files): its one bot, else none (a folder of submissions).
fn team_folder_entrant(
    text: &str,
    game: GameKind,
    python: Option<&str>,
) -> Result<Option<Entrant>, Error> {
    let Some(bot) = class::team_folder(Path::new(text), game) else {
        return Ok(None);
    };
    note!(
        "{text} is one team's folder: bot {} ({})",
        bot.name,
        bot.file.display()
    );
    let parent = Path::new(text.trim_end_matches('/'))
        .parent()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    found_entrant(bot, &parent, python).map(Some)
}

fn shlex_quote(text: &str) -> String {
    shlex::try_quote(text)
        .map(|q| q.into_owned())
        .unwrap_or_else(|_| text.to_string())
}

/// The bots as written on the command line: each `NAME=SPEC`, a SPEC, or a folder of
/// submissions (every bot in it); and the entries of those folders that are not bots
/// (`strict`: an error). A console program named without `NAME=` is asked its name under
/// `confine`; the `roster` (and its path) tells whose team a folder's submissions named
/// after one team are.
pub(crate) fn cli_entrants(
    bots: &[String],
    game: GameKind,
    python: Option<&str>,
    out: &Path,
    (strict, roster): (bool, Option<(&class::Roster, &Path)>),
    confine: Confinement,
) -> Result<Entries, Error> {
    let mut all = Entries::default();
    for text in bots {
        let folder = Path::new(text);
        if folder.is_dir() {
            if let Some(bot) = team_folder_entrant(text, game, python)? {
                all.entrants.push(bot);
                continue;
            }
            let found = folder_entrants(
                folder,
                text,
                game,
                None,
                &unpack_dir(out, folder),
                python,
                (strict, roster),
            )?;
            all.entrants.extend(found.entrants);
            all.left_out.extend(found.left_out);
            all.merged.extend(found.merged);
            all.handed_in.extend(found.handed_in);
        } else {
            all.entrants.push(cli_entrant(text, python, confine)?);
        }
    }
    super::options::name_entrants(&mut all.entrants);
    Ok(all)
}

/// Checks every bot of a tournament and prints the table; the bots that failed, each with
/// its failure in the words of the marks (`could not start: SyntaxError: ... (Team03.py,
/// line 4)`).
pub(crate) fn preflight<G: Builtins>(
    game: &G,
    t: &Tournament,
) -> Result<Vec<(String, String)>, Error> {
    let rows = run_checks(game, &t.entrants, t.move_limit, t.init_limit, t.jobs)?;
    Ok(rows
        .into_iter()
        .filter(|r| !r.ok())
        .map(|r| {
            let line = crate::record::headline(&r.error);
            let words = crate::record::failure_words(r.status.label(), &line);
            (
                r.name,
                format!("{}: {words}", crate::tournament::journal::FAILED_THE_CHECK),
            )
        })
        .collect())
}

pub(crate) fn run_checks<G: Builtins>(
    game: &G,
    entrants: &[Entrant],
    move_limit: Duration,
    init_limit: Duration,
    jobs: usize,
) -> Result<Vec<preflight::CheckRow>, Error> {
    crate::tournament::setup::check(entrants)?;
    for e in entrants {
        if !matches!(e.spec, BotSpec::Builtin(_)) {
            super::confine::check(&e.name, &e.confine)?;
        }
    }
    note!(
        "checking {} bot{}: start-up within {} ms, one move as each role within {} ms",
        entrants.len(),
        if entrants.len() == 1 { "" } else { "s" },
        init_limit.as_millis(),
        move_limit.as_millis()
    );
    let rows = preflight::check_all(game, entrants, move_limit, init_limit, jobs);
    say!("{}", crate::report::check::check_table(game.roles(), &rows));
    let failed = rows.iter().filter(|r| !r.ok()).count();
    if rows.is_empty() {
        // A class whose every entry was left out passed nothing: an empty table is no pass.
        say!(
            "no bot was checked: no entry is a bot (each one left out is listed above with \
             why)"
        );
    } else if failed > 0 {
        say!("{failed} of {} bots failed the check", rows.len());
    } else {
        say!("all {} bots passed the check", rows.len());
    }
    Ok(rows)
}

/// `arbiter check`: exit 0 when every bot passed, 1 when one failed or there was none to
/// check, 2 on bad input.
pub(crate) fn check(args: CheckArgs) -> Result<i32, Error> {
    let settings = GameOptions::defaults(args.game).settings()?;
    let python = args.python.as_deref();
    // Zips are unpacked into a folder made for this check alone (mode 0700, a name nobody
    // can guess), and removed with it: nothing another user put anywhere is ever run.
    let unpacked = tempfile::Builder::new()
        .prefix("arbiter-check-")
        .tempdir()
        .map_err(|e| {
            Error::usage(format!(
                "cannot make a private folder in {}: {e}",
                std::env::temp_dir().display()
            ))
        })?;
    let mut entrants = Vec::new();
    for (i, text) in args.bots.iter().enumerate() {
        let folder = Path::new(text);
        if folder.is_dir() {
            if let Some(bot) = team_folder_entrant(text, settings.kind, python)? {
                entrants.push(bot);
                continue;
            }
            let found = folder_entrants(
                folder,
                text,
                settings.kind,
                None,
                &unpacked.path().join(i.to_string()),
                python,
                (args.strict, None),
            )?;
            entrants.extend(found.entrants);
        } else {
            entrants.push(cli_entrant(text, python, args.confine.confinement())?);
        }
    }
    super::options::name_entrants(&mut entrants);
    let mut names = std::collections::HashSet::new();
    for e in &mut entrants {
        e.confine = args.confine.confinement();
        if !names.insert(e.name.clone()) {
            return Err(Error::usage(format!(
                "two bots are named `{}`: give them distinct names (NAME=SPEC)",
                e.name
            )));
        }
    }
    let move_limit = Duration::from_millis(args.limit_ms);
    let init_limit = Duration::from_millis(args.init_limit_ms);
    let jobs = jobs_or_cores(args.jobs.map(|j| j as usize));
    with_game!(settings, 1, |game| {
        let rows = run_checks(&game, &entrants, move_limit, init_limit, jobs)?;
        Ok(if !rows.is_empty() && rows.iter().all(|r| r.ok()) {
            crate::error::exit::DONE
        } else {
            crate::error::exit::FAILED
        })
    })
}
