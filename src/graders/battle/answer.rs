//! A solver's answer `plan;score;nodesExpanded;`: parsed, and its plan replayed from the
//! case's start.

use crate::games::battle::{Letter, State};

/// A solver's answer, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Answer {
    /// `(player, attacker, target)` per action.
    pub plan: Vec<(Letter, usize, usize)>,
    pub score: i64,
    pub nodes: u64,
}

/// Reads `plan;score;nodesExpanded;` (the final `;` may be left out).
pub(crate) fn parse_answer(text: &str) -> Result<Answer, String> {
    let text = text.trim();
    let body = text.strip_suffix(';').unwrap_or(text);
    let fields: Vec<&str> = body.split(';').collect();
    let [plan, score, nodes] = fields.as_slice() else {
        return Err(format!(
            "expected `plan;score;nodesExpanded;`, got {} field(s)",
            fields.len()
        ));
    };
    let score = score
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("the score `{score}` is not an integer"))?;
    let nodes = nodes
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("nodesExpanded `{nodes}` is not a non-negative integer"))?;
    let plan = if plan.trim().is_empty() {
        Vec::new()
    } else {
        split_actions(plan)?
    };
    Ok(Answer { plan, score, nodes })
}

/// `A(1,0),B(0,1)` into actions: the commas inside parentheses are not separators.
pub(super) fn split_actions(plan: &str) -> Result<Vec<(Letter, usize, usize)>, String> {
    let mut actions = Vec::new();
    let mut rest = plan.trim();
    while !rest.is_empty() {
        let close = rest
            .find(')')
            .ok_or_else(|| format!("action `{rest}` has no closing parenthesis"))?;
        let one = &rest[..=close];
        actions.push(
            parse_action(one.trim())
                .ok_or_else(|| format!("action {} `{one}` is not P(i,j)", actions.len() + 1))?,
        );
        rest = rest[close + 1..].trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start();
        } else if !rest.is_empty() {
            return Err(format!("expected `,` between actions, got `{rest}`"));
        }
    }
    Ok(actions)
}

pub(super) fn parse_action(text: &str) -> Option<(Letter, usize, usize)> {
    let letter = match text.chars().next()? {
        'A' => Letter::A,
        'B' => Letter::B,
        _ => return None,
    };
    let inner = text[1..].trim().strip_prefix('(')?.strip_suffix(')')?;
    let (i, j) = inner.split_once(',')?;
    Some((letter, i.trim().parse().ok()?, j.trim().parse().ok()?))
}

/// Replays `plan` from `start`; the end score, or why the plan is not a legal, complete
/// game.
pub(crate) fn replay(start: &State, plan: &[(Letter, usize, usize)]) -> Result<i64, String> {
    let mut state = start.clone();
    for (k, &(p, i, j)) in plan.iter().enumerate() {
        let n = k + 1;
        let action = format!("{}({i},{j})", p.as_char());
        if state.winner().is_some() {
            return Err(format!(
                "action {n} {action}: the game ended at action {k}, the plan goes on"
            ));
        }
        let mover = state.letter(state.to_move());
        if p != mover {
            return Err(format!(
                "action {n} {action}: it is {}'s turn",
                mover.as_char()
            ));
        }
        let own = state.army_of(p);
        let enemy = state.army_of(p.other());
        match (own.get(i), enemy.get(j)) {
            (None, _) => {
                return Err(format!(
                    "action {n} {action}: {} has no unit {i}",
                    p.as_char()
                ));
            }
            (_, None) => {
                return Err(format!(
                    "action {n} {action}: {} has no unit {j}",
                    p.other().as_char()
                ));
            }
            (Some(u), _) if !u.alive() => {
                return Err(format!("action {n} {action}: the attacker is dead"));
            }
            (_, Some(u)) if !u.alive() => {
                return Err(format!("action {n} {action}: the target is dead"));
            }
            _ => {}
        }
        state.attack(i, j);
    }
    state.score().ok_or_else(|| {
        format!(
            "the game is not over after the plan's {} action(s): {}",
            plan.len(),
            state.course_string()
        )
    })
}
