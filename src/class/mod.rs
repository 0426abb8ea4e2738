//! The class: how a course's "download all" and its roster become teams and students.
//!
//! A folder of submissions is scanned into bots (`submissions`, then [`scan`]: the names
//! they play under, told apart by student where a file is named after another team), each
//! platform's way of naming a student's files read on the way (`platform`), and the
//! teacher's class list
//! (`roster`: [`Roster`], [`read_roster`], [`match_teams`]) matched to the teams before any
//! game. What of its folder a bot may read, its own submission, is told from the same
//! reading of the folder (`own`: [`enter`]).

mod own;
mod platform;
mod roster;
mod scan;
mod submissions;
mod unpack;

pub use own::enter;
pub use platform::{late_of, names_its_student};
pub use roster::{
    Matched, PARTIAL_ROSTER_FILE, ROSTER_FILE, Roster, Teams, delimiter as csv_delimiter,
    keep_roster, kept_partial, match_teams, read_roster, same_team,
};
pub use scan::scan;
pub use submissions::{Clash, Found, Handed, Same, Skipped, Submissions, team_folder};
