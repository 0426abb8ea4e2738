//! The course bots a league played, kept beside its journal (`versions/NAME/DIGEST/`): a
//! copy of each version's folder as its bot saw it, so that a team whose resubmission fails
//! `league --check --update` plays on as the version that passed, against today's other
//! bots, though the class's new download no longer holds that version's files.
//!
//! A copy holds what the bot's private folder would (its folder, without another team's
//! entries or the results), so its digest is the version's own; a folder too big for the
//! jail's copy is not kept, and that version cannot play on.

use super::entrant::Entrant;
use super::journal::Plan;
use crate::bots::spec::BotSpec;
use crate::error::Error;
use std::path::{Path, PathBuf};

/// The folder, beside a league's journal, of the versions kept to play on.
pub(crate) const KEPT_DIR: &str = "versions";
/// The most a kept version's folder may hold.
const MAX_KEPT_BYTES: u64 = 64 << 20;

/// The file of a course bot, the one its spec names.
fn course_file(spec: &BotSpec) -> Option<&Path> {
    match spec {
        BotSpec::CoursePython { file, .. } | BotSpec::CourseJava { file } => Some(file),
        _ => None,
    }
}

/// The folder that keeps the version of `bot` whose digest is `digest`.
fn version_folder(out: &Path, bot: &str, digest: &str) -> PathBuf {
    out.join(KEPT_DIR)
        .join(crate::untrusted::text::file_name(bot))
        .join(crate::untrusted::text::file_name(
            &digest[..digest.len().min(16)],
        ))
}

/// Keeps a copy of each course bot of `plan` (its digest as the plan has it) that is not
/// kept yet. Called once the run's entrants are known to confinement (another team's
/// entries are left out of each copy). A copy whose files changed while it was made, or
/// that is too big, is not kept; nothing else stops the run.
pub(crate) fn keep(out: &Path, plan: &Plan, entrants: &[Entrant]) -> Result<(), Error> {
    for entrant in entrants {
        let Some(file) = course_file(&entrant.spec) else {
            continue;
        };
        let Some(digest) = plan
            .bots
            .iter()
            .find(|b| b.name == entrant.name)
            .and_then(|b| b.digest.clone())
        else {
            continue;
        };
        let folder = version_folder(out, &entrant.name, &digest);
        if folder.is_dir() {
            continue;
        }
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let (Some(origin), Some(name)) = (file.parent(), file.file_name()) else {
            continue;
        };
        let partial = folder.with_extension("partial");
        let _ = std::fs::remove_dir_all(&partial);
        let made = |e: std::io::Error| Error::Io {
            path: partial.clone(),
            source: e,
        };
        std::fs::create_dir_all(&partial).map_err(made)?;
        let copy = partial.join(origin.file_name().unwrap_or_else(|| "bot".as_ref()));
        let results = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
        // The results are no part of a bot, but for a zip's files unpacked there.
        let skip = |path: &Path| {
            (path.starts_with(&results) && !origin.starts_with(&results))
                || crate::jail::entrants::is_others(path, &file)
        };
        let copied =
            crate::untrusted::file::copy_private_tree(origin, &copy, MAX_KEPT_BYTES, &skip);
        let same = copied.is_ok()
            && super::setup::digest(&with_file(&entrant.spec, &copy.join(name)), None)
                .ok()
                .flatten()
                == Some(digest.clone());
        if !same {
            let _ = std::fs::remove_dir_all(&partial);
            continue;
        }
        std::fs::rename(&partial, &folder).map_err(|source| Error::Io {
            path: folder.clone(),
            source,
        })?;
    }
    Ok(())
}

/// `spec` with its file at `file` instead.
fn with_file(spec: &BotSpec, file: &Path) -> BotSpec {
    match spec {
        BotSpec::CoursePython { python, .. } => BotSpec::CoursePython {
            file: file.to_path_buf(),
            python: python.clone(),
        },
        BotSpec::CourseJava { .. } => BotSpec::CourseJava {
            file: file.to_path_buf(),
        },
        other => other.clone(),
    }
}

/// `entrant` as the version of its bot kept in `out` with `digest`: the same bot, its spec
/// the kept copy's file. None when no copy of that version is kept (a league from before
/// versions were kept, a folder too big), or the copy is no longer that version.
pub(crate) fn previous(out: &Path, entrant: &Entrant, digest: &str) -> Option<Entrant> {
    let file = course_file(&entrant.spec)?;
    let name = file.file_name()?;
    let folder = version_folder(out, &entrant.name, digest);
    let copy = std::fs::read_dir(&folder)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.is_dir())?
        .join(name);
    let spec = with_file(&entrant.spec, &copy);
    if super::setup::digest(&spec, None).ok().flatten().as_deref() != Some(digest) {
        return None;
    }
    Some(Entrant {
        spec_text: copy.display().to_string(),
        spec,
        cwd: None,
        file: None,
        ..entrant.clone()
    })
}

/// What `league --check --update` makes of the bots that `failed` the check (name and
/// reason): a bot of the league's journal whose version that played is kept plays on as
/// that version, its resubmission recorded as refused ([`super::Tournament::refused`]);
/// the others are returned, to be left out as any failing bot is; with what to say of
/// each bot of the journal.
pub(crate) fn play_on(
    tournament: &mut super::Tournament,
    failed: Vec<(String, String)>,
) -> (Vec<(String, String)>, Vec<String>) {
    let journal = tournament.out.join(super::journal::JOURNAL_FILE);
    let Some(old) = super::journal::read_plan(&journal) else {
        return (failed, Vec::new());
    };
    let (mut left, mut said) = (Vec::new(), Vec::new());
    for (name, reason) in failed {
        let played = old.bots.iter().find(|b| b.name == name);
        let at = tournament.entrants.iter().position(|e| e.name == name);
        let (Some(played), Some(at)) = (played, at) else {
            left.push((name, reason));
            continue;
        };
        let entrant = &tournament.entrants[at];
        let digest = played.digest.as_deref().unwrap_or_default();
        let Some(previous) = previous(&tournament.out, entrant, digest) else {
            said.push(format!(
                "{name} failed the check and no copy of the version that played is kept \
                 (a league begun before versions were kept, or a folder over {} MiB): \
                 left out, and retired by this update",
                MAX_KEPT_BYTES >> 20
            ));
            left.push((name, reason));
            continue;
        };
        let now = super::setup::digest(&entrant.spec, entrant.cwd.as_deref())
            .ok()
            .flatten();
        let short = |d: &str| d.chars().take(12).collect::<String>();
        let why = reason
            .strip_prefix(super::journal::FAILED_THE_CHECK)
            .map_or(reason.as_str(), |r| r.trim_start_matches(": "));
        said.push(format!(
            "{name}: {} ({why}); its version that played ({}) plays on",
            match now.as_deref() == Some(digest) {
                true => "fails the check now".to_string(),
                false => format!(
                    "its resubmission {} fails the check",
                    now.as_deref().map(short).unwrap_or_default()
                ),
            },
            short(digest)
        ));
        tournament.refused.push(super::versions::Refused {
            bot: name,
            digest: now,
            reason,
        });
        tournament.entrants[at] = previous;
    }
    (left, said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_version_stays_inside_the_leagues_versions_folder_whatever_its_bots_name() {
        let out = Path::new("/results/league");
        for name in ["..", ".", "../..", "a/../../b", ".hidden", "T\\1", "Team07"] {
            let folder = version_folder(out, name, &"ab".repeat(32));
            let inside = folder.strip_prefix(out.join(KEPT_DIR)).unwrap();
            let parts: Vec<_> = inside.components().collect();
            assert_eq!(parts.len(), 2, "{name}: {}", folder.display());
            assert!(
                parts
                    .iter()
                    .all(|p| matches!(p, std::path::Component::Normal(n) if !n.to_string_lossy().starts_with('.'))),
                "{name}: {}",
                folder.display()
            );
        }
    }
}
