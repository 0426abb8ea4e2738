//! The names a public report gives bots named after their students: a platform's download
//! names a student's folder or file with their name and id, and a bot with no team name of
//! its own (a Hinger agent, a folder's name) goes by it. In a report for the class each of
//! those is `Bot 1`, `Bot 2`, ... (in the plan's order), everywhere a name appears; the
//! team's own feedback tells it which one it is.

use crate::record::GameRecord;
use crate::tournament::journal::{Loaded, Plan};
use std::collections::BTreeMap;
use std::sync::Arc;

/// The public name of each bot or left-out entry of `plan` whose name carries its
/// student's name or id ([`crate::class::names_its_student`]), by its name. Never a name
/// another bot has.
pub(crate) fn pseudonyms(plan: &Plan) -> BTreeMap<String, String> {
    let named = plan
        .bots
        .iter()
        .map(|b| (&b.name, &b.spec))
        .chain(plan.left_out.iter().map(|l| (&l.name, &l.entry)));
    let taken: Vec<&str> = plan
        .bots
        .iter()
        .map(|b| b.name.as_str())
        .chain(plan.left_out.iter().map(|l| l.name.as_str()))
        .collect();
    let mut free = (1..)
        .map(|n| format!("Bot {n}"))
        .filter(|n| !taken.contains(&n.as_str()));
    let mut names = BTreeMap::new();
    for (name, entry) in named {
        if crate::class::names_its_student(entry, name) && !names.contains_key(name) {
            names.insert(name.clone(), free.next().expect("an endless run of names"));
        }
    }
    names
}

fn rename(name: &mut String, names: &BTreeMap<String, String>) {
    if let Some(public) = names.get(name.as_str()) {
        name.clone_from(public);
    }
}

/// `plan` with its bots, left-out entries and merged entries under their public names.
pub(crate) fn plan(plan: &mut Plan, names: &BTreeMap<String, String>) {
    plan.bots
        .iter_mut()
        .for_each(|b| rename(&mut b.name, names));
    plan.left_out
        .iter_mut()
        .for_each(|l| rename(&mut l.name, names));
    plan.merged
        .iter_mut()
        .for_each(|m| rename(&mut m.name, names));
}

/// `record` with its players under their public names.
pub(crate) fn record(record: &mut GameRecord, names: &BTreeMap<String, String>) {
    record.players.values_mut().for_each(|p| rename(p, names));
}

/// `loaded`, its plan and every game's players, under their public names.
pub(crate) fn loaded(loaded: &mut Loaded, names: &BTreeMap<String, String>) {
    plan(&mut loaded.plan, names);
    for game in &mut loaded.games {
        for player in &mut game.players {
            if let Some(public) = names.get(player.as_str()) {
                *player = Arc::new(public.clone());
            }
        }
    }
}
