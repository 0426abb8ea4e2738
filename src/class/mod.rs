//! The class: how a course's "download all" and its roster become teams and students.
//!
//! A folder of submissions is scanned into bots (`submissions`), each platform's way of
//! naming a student's files read on the way (`platform`), and the teacher's class list
//! (`roster`: [`Roster`], [`read_roster`], [`match_teams`]) matched to the teams before any
//! game. What of its folder a bot may read, its own submission, is told from the same
//! reading of the folder (`own`: [`enter`]).

mod own;
mod platform;
mod roster;
mod submissions;
mod unpack;

pub use own::enter;
pub use roster::{
    Matched, ROSTER_FILE, Roster, Teams, keep_roster, match_teams, read_roster, same_team,
};
pub use submissions::{Found, Same, Skipped, Submissions, scan, team_folder};
