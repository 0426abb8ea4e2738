//! The class: how a course's "download all" and its roster become teams and students.
//!
//! A folder of submissions is scanned into bots (`submissions`), each platform's way of
//! naming a student's files read on the way (`platform`), and the teacher's class list
//! (`roster`: [`Roster`], [`read_roster`], [`match_teams`]) matched to the teams before any
//! game.

mod platform;
mod roster;
mod submissions;

pub use roster::{
    Matched, ROSTER_FILE, Roster, Teams, keep_roster, match_teams, read_roster, same_team,
};
pub use submissions::{Found, Same, Skipped, Submissions, scan, team_folder};
