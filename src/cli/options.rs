//! Options shared by every command that plays, and bots as written on the command line
//! (`NAME=SPEC` or a SPEC).

use super::games::GameOptions;
use crate::bots::spec::{BotSpec, Confinement};
use crate::error::Error;
use crate::tournament::openings::{OpeningChoice, Openings};
use crate::tournament::{Entrant, Format, Tournament};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

// Options of every command that plays: limits, seed, interpreter, confinement.
#[derive(clap::Args, Debug)]
pub(crate) struct PlayOptions {
    /// The move limit in milliseconds, measured by the referee.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit_ms: u64,
    /// The start-up handshake limit in milliseconds.
    #[arg(long, default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub init_limit_ms: u64,
    /// The seed: every game's and bot's seed derives from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The interpreter for course-style `.py` bots (default: $ARBITER_PYTHON, else python3 from
    /// PATH).
    #[arg(long)]
    pub python: Option<String>,
    #[command(flatten)]
    pub confine: super::confine::ConfineArgs,
}

// How a tournament's pairs start.
#[derive(clap::Args, Debug)]
pub(crate) struct OpeningOptions {
    /// Each pair starts with N random plies drawn from the seed (0: the standard start).
    /// Default: the standard start for league and run, the game's measured number for
    /// gauntlet and sprt (README, "Openings").
    #[arg(
        help_heading = "Openings",
        long,
        value_name = "N",
        conflicts_with = "openings"
    )]
    pub random_plies: Option<u32>,
    /// An opening book: one JSON array of moves a line; pair i plays line i, cycling.
    #[arg(help_heading = "Openings", long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// The order the book's lines are played in.
    #[arg(help_heading = "Openings", long, value_enum, requires = "openings")]
    pub openings_order: Option<OpeningsOrder>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum OpeningsOrder {
    /// The book's order.
    Sequential,
    /// Shuffled by the seed.
    Random,
}

impl OpeningOptions {
    pub(crate) fn choice(&self) -> OpeningChoice {
        match (&self.openings, self.random_plies) {
            (Some(file), _) => OpeningChoice::Book {
                file: file.clone(),
                shuffled: self.openings_order == Some(OpeningsOrder::Random),
            },
            (None, Some(n)) => OpeningChoice::RandomPlies(n),
            (None, None) => OpeningChoice::Default,
        }
    }
}

// Options of every command that plays games in parallel.
#[derive(clap::Args, Debug)]
pub(crate) struct MatchOptions {
    #[command(flatten)]
    pub game: GameOptions,
    /// Games at once (default: the number of cores).
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    #[command(flatten)]
    pub play: PlayOptions,
}

impl MatchOptions {
    /// A tournament of `entrants` with these options.
    pub(crate) fn tournament(
        &self,
        format: Format,
        mut entrants: Vec<Entrant>,
        pairs: u32,
        out: PathBuf,
        force_new: bool,
    ) -> Tournament {
        for e in &mut entrants {
            e.confine = self.play.confine.confinement();
        }
        Tournament {
            format,
            entrants,
            pairs,
            seed: self.play.seed,
            move_limit: Duration::from_millis(self.play.limit_ms),
            init_limit: Duration::from_millis(self.play.init_limit_ms),
            jobs: jobs_or_cores(self.jobs.map(|j| j as usize)),
            out,
            force_new,
            update: false,
            // Set once the game is known (`OpeningChoice::resolve`).
            openings: Openings::Standard,
            shard: None,
            left_out: Vec::new(),
            merged: Vec::new(),
            refused: Vec::new(),
            // Set by a run whose report is made from what its game threads replay.
            replays: false,
            chores: None,
            live: None,
        }
    }
}

/// Games at once: `jobs`, or one per core.
pub(crate) fn jobs_or_cores(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(crate::clocks::placement::cores)
}

/// A bot as written on the command line, `NAME=SPEC` or a SPEC: its name (given, or
/// derived from the spec), the spec's text and the parsed spec.
pub(crate) fn named_spec(
    text: &str,
    python: Option<&str>,
    confine: Confinement,
) -> Result<(String, String, BotSpec), Error> {
    let (name, spec_text, spec) = spec_with_name(text, python)?;
    let name =
        name.unwrap_or_else(|| crate::bots::display_name(&spec, None, &BTreeMap::new(), confine));
    Ok((name, spec_text, spec))
}

/// [`named_spec`] without asking a console program its name: the name if written, the
/// spec's text and the parsed spec.
pub(crate) fn spec_with_name(
    text: &str,
    python: Option<&str>,
) -> Result<(Option<String>, String, BotSpec), Error> {
    let (name, spec_text) = match text.split_once('=') {
        // `NAME=` only when NAME is a plain word: a command line may hold `=` too.
        Some((name, spec))
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-.".contains(c)) =>
        {
            (Some(name.to_string()), spec.to_string())
        }
        _ => (None, text.to_string()),
    };
    let spec = parse_spec(&spec_text, python)?;
    if let BotSpec::Command(command) = &spec {
        check_program(&spec_text, &command.program)?;
    }
    Ok((name, spec_text, spec))
}

/// A command bot's program must be a file, or a program on PATH: a mistyped path (a
/// folder of submissions that does not exist) is bad input, not a team that cannot start.
pub(crate) fn check_program(text: &str, program: &str) -> Result<(), Error> {
    let path = std::path::Path::new(program);
    // Where a folder is taken (league, gauntlet, check, run), it was taken before this: here
    // a folder stands for one bot, which it is not.
    if path.is_dir() {
        return Err(Error::usage(format!(
            "bot `{text}`: `{program}` is a folder, and one bot is expected here: its bot file \
             (a Team*.py, a .java player, an a3_agent.py), `builtin:NAME` or a command line \
             (a folder of submissions is read by league, gauntlet, check and run)"
        )));
    }
    let found = if program.contains('/') {
        path.exists()
    } else {
        std::env::var_os("PATH").is_some_and(|paths| {
            std::env::split_paths(&paths).any(|dir| dir.join(program).is_file())
        })
    };
    if found {
        return Ok(());
    }
    let what = if program.contains('/') {
        format!(
            "`{program}` does not exist{}",
            crate::error::tilde_hint(path)
        )
    } else {
        format!("`{program}` is not a file, a folder or a program on PATH")
    };
    Err(Error::usage(format!(
        "bot `{text}`: {what}: expected a folder of submissions, a bot file, \
         `builtin:NAME` or a command line"
    )))
}

/// A tournament entrant as written on the command line, `NAME=SPEC` or a SPEC, to run
/// under `confine`. Without `NAME=`, its name is left empty for [`name_entrants`].
pub(crate) fn cli_entrant(
    text: &str,
    python: Option<&str>,
    confine: Confinement,
) -> Result<Entrant, Error> {
    let (name, spec_text, spec) = spec_with_name(text, python)?;
    Ok(Entrant {
        name: name.unwrap_or_default(),
        spec_text,
        spec,
        cwd: None,
        env: BTreeMap::new(),
        confine,
        non_scoring: false,
        file: None,
    })
}

/// Makes `entrants` the run's, then names those written without a name: a console program
/// is asked its own in a jail that already hides every other entrant's files.
pub(crate) fn name_entrants(entrants: &mut [Entrant]) {
    crate::tournament::setup::enter(entrants);
    for e in entrants.iter_mut().filter(|e| e.name.is_empty()) {
        e.name = crate::bots::display_name(&e.spec, e.cwd.as_deref(), &e.env, e.confine);
    }
}

/// A bot spec as the user wrote it, with its python override applied. An interpreter
/// given as a relative path is made absolute: the bot runs in its own folder.
pub(crate) fn parse_spec(text: &str, python: Option<&str>) -> Result<BotSpec, Error> {
    let mut spec = BotSpec::parse(text).map_err(|e| Error::usage(e.to_string()))?;
    if let BotSpec::CoursePython { python: p, .. } = &mut spec {
        *p = python.map(|python| {
            let path = std::path::Path::new(python);
            match std::path::absolute(path) {
                Ok(absolute) if python.contains('/') && path.is_relative() => {
                    absolute.to_string_lossy().into_owned()
                }
                _ => python.to_string(),
            }
        });
    }
    Ok(spec)
}

/// The largest rating `--anchor` takes, either side of zero.
const MAX_ANCHOR: f64 = 100_000.0;

/// `--anchor NAME=ELO`: the bot whose Elo is fixed, so that ratings of runs sharing it can
/// be compared. The name is checked against the tournament's bots once they are known.
pub(crate) fn parse_anchor(text: &str) -> Result<crate::stats::elo::Anchor, String> {
    let Some((bot, elo)) = text.rsplit_once('=') else {
        return Err(format!(
            "`{text}`: expected NAME=ELO, a bot's name and the rating to fix it at (e.g. \
             random=1000)"
        ));
    };
    let elo: f64 = elo.trim().parse().map_err(|_| {
        format!("`{text}`: the rating `{elo}` after `=` is not a number (expected NAME=ELO)")
    })?;
    // Ratings are sums of the anchor and differences: beyond this they lose their digits.
    if bot.is_empty() || !elo.is_finite() || elo.abs() > MAX_ANCHOR {
        return Err(format!(
            "`{text}`: expected NAME=ELO with a bot's name and a rating from -{MAX_ANCHOR} to \
             {MAX_ANCHOR}"
        ));
    }
    Ok(crate::stats::elo::Anchor {
        bot: bot.to_string(),
        elo,
    })
}

#[cfg(test)]
mod tests {
    use super::parse_anchor;

    #[test]
    fn an_anchor_is_a_name_and_a_finite_rating() {
        let a = parse_anchor("random=1000").unwrap();
        assert_eq!((a.bot.as_str(), a.elo), ("random", 1000.0));
        let a = parse_anchor("a=b=-50.5").unwrap();
        assert_eq!(
            (a.bot.as_str(), a.elo),
            ("a=b", -50.5),
            "the last `=` splits"
        );
        for bad in [
            "random",
            "=1000",
            "random=",
            "random=high",
            "random=inf",
            "random=1e308",
        ] {
            let e = parse_anchor(bad).unwrap_err();
            assert!(
                e.contains("NAME=ELO") || e.contains("not a number"),
                "{bad}: {e}"
            );
        }
    }
}
