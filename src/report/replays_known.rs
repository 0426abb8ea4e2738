//! The game browser of a journal made through what its report already holds
//! ([`crate::replay::files`]: the index of its blocks of replays) and what the journal's
//! folder knows (`tournament::journal::Known`: each game's summary): a game known is
//! neither decoded nor replayed, and a block of games all as they were is left as it is.

use super::replay::{Browser, GamesHtml, Item, replay_in_parallel, section_reading};
use crate::error::Error;
use crate::games::Game;
use crate::games::registry::{GameSettings, with_game};
use crate::record::{GameRecord, GameSummary};
use crate::replay::files::{BlocksRead, KnownReplays, head};
use crate::tournament::journal::{
    Key, Known, Loaded, Plan, decode_game, for_each_record, key_of, load_decoding, load_visiting,
    read_plan,
};
use std::path::Path;

/// The game browser as one HTML fragment: `<section id="games">` with its own style and
/// script (every rule and name scoped to it), the list of every game of `journal` and the
/// replay panel. The replays themselves are written beside the page, into
/// `out/`[`crate::replay::files::REPLAYS_DIR`], block by block as they are made, so that neither this process
/// nor the page holds every game's replay: the page loads a block's file when one of its
/// games is opened. The DOM it draws is described in docs/OUTPUTS.md (tests read the
/// board back from it).
pub(crate) fn section(plan: &Plan, journal: &Path, out: &Path) -> Result<GamesHtml, Error> {
    let games = section_known(plan, journal, out, None)?.0;
    games.wait()?;
    Ok(games)
}

/// The journal loaded ([`crate::tournament::journal::load`]) and its game browser
/// ([`section`], its replays written into `out`) from one reading of it. For a report for
/// the class (`public`) the list gives no game's detail (a detail quotes a failing bot's
/// error) and bots named after their students go by their public names
/// ([`super::public`]), in the journal loaded as in the browser.
pub(crate) fn load_and_section(
    journal: &Path,
    out: &Path,
    public: bool,
) -> Result<(Loaded, GamesHtml), Error> {
    // A report for the class gives each game no detail (a team's error text).
    let details = !public;
    let Some(mut plan) = read_plan(journal) else {
        // Whatever is wrong with the header, the whole reading says it.
        let loaded = load_visiting(journal, &mut |_, _| Ok(()))?;
        let games = section_reading(&loaded.plan, out, details, |visit| {
            for_each_record(journal, visit)
        })?
        .0;
        return Ok((loaded, games));
    };
    if !public {
        // The teacher's report: through the report's index and the journal's cache.
        let known = crate::tournament::journal::Known::of(journal);
        let (games, loaded) = section_known(&plan, journal, out, Some(&known))?;
        return Ok((loaded, games));
    }
    let names = super::public::pseudonyms(&plan);
    super::public::plan(&mut plan, &names);
    let (games, mut loaded) = section_reading(&plan, out, details, |visit| {
        load_visiting(journal, &mut |id, mut record| {
            super::public::record(&mut record, &names);
            visit(id, record)
        })
    })?;
    super::public::loaded(&mut loaded, &names);
    Ok((loaded, games))
}

/// A game line as read for the game browser: known to the report's index (its key, its
/// text kept should its block be gone, and the journal's format), or decoded.
enum Line {
    Known(Key, Vec<u8>, u32),
    Record(Box<GameRecord>, Option<Key>),
}

/// The game browser of the journal at `journal` (of `plan`), its replays written into
/// `out`, through the report's index there: a game it knows is not decoded nor replayed,
/// and a block of games all as they were is left as it is. With `summaries` (the
/// journal's cache), the journal loaded too, each game's summary from the cache when it
/// knows it: what `arbiter report` reads; the page is the same either way.
pub(crate) fn section_known(
    plan: &Plan,
    journal: &Path,
    out: &Path,
    summaries: Option<&Known>,
) -> Result<(GamesHtml, Loaded), Error> {
    let mut known = KnownReplays::of(out, &head(&plan.game, &plan.rules, plan.seed, &plan.roles));
    let old = std::sync::Arc::new(known.take_blocks());
    let mut reading = BlocksRead::default();
    let decode = |version: u32, text: &[u8]| -> Result<(u64, Line), String> {
        let keyed = key_of(version, text);
        if let Some((id, key)) = keyed
            && known.knows(&key)
            && summaries.is_none_or(|s| s.knows(&key))
        {
            return Ok((id, Line::Known(key, text.to_vec(), version)));
        }
        let (id, record) = decode_game(version, text)?;
        let key = keyed.filter(|(keyed, _)| *keyed == id).map(|(_, key)| key);
        Ok((id, Line::Record(Box::new(record), key)))
    };
    let settings = GameSettings::from_rules(&plan.game, &plan.rules)?;
    with_game!(settings, plan.seed, |game| {
        let mut browser = Browser::new(out, game.view_kinds(), None)?;
        browser.leave_unchanged(old.clone());
        let read = replay_in_parallel(&game, plan, &mut browser, |visit| {
            load_decoding(journal, &decode, &mut |id, line| {
                let (item, summary) = match line {
                    Line::Known(key, text, version) => {
                        let ready = known.replayed(id, &key, &old, &mut reading);
                        let summary = summaries.and_then(|s| s.summary(id, &key));
                        match ready {
                            Some(ready) if summaries.is_none() || summary.is_some() => {
                                (Item::Ready(ready), summary)
                            }
                            // Its block was rewritten or let go: replayed as if unknown.
                            _ => {
                                let (_, record) =
                                    decode_game(version, &text).map_err(|e| Error::Input {
                                        path: journal.to_path_buf(),
                                        line: 0,
                                        message: format!("game {id}: not a game record: {e}"),
                                    })?;
                                let summary = summaries.map(|_| GameSummary::of(id, &record));
                                (Item::Record(id, Box::new(record), Some(key)), summary)
                            }
                        }
                    }
                    Line::Record(record, key) => {
                        let summary = summaries.map(|_| GameSummary::of(id, &record));
                        (Item::Record(id, record, key), summary)
                    }
                };
                visit(item)?;
                Ok(summary)
            })
        });
        // The blocks written so far are waited for, whatever the reading gave.
        let made = browser.finish(plan);
        read.and_then(|loaded| made.map(|html| (html, loaded)))
    })
}
