//! The command line: a thin layer that parses arguments and calls the library.

/// `println!` for the command line's output: names, errors and details may come from bots,
/// so control characters are shown (`\u{1b}`), never sent to the terminal raw.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::print(&format!(
            "{}\n",
            $crate::untrusted::text::terminal(&format!($($arg)*))
        ))
    };
}

/// [`say!`] on stderr.
macro_rules! note {
    ($($arg:tt)*) => {
        eprintln!("{}", $crate::untrusted::text::terminal(&format!($($arg)*)))
    };
}

mod autograde;
mod confine;
mod console;
mod doctor;
pub(crate) mod games;
mod league;
mod openings;
mod options;
mod perft;
mod play;
mod progress;
mod report;
mod run;
mod signals;
mod solve;
mod sprt;
mod submissions;
mod suite;
mod tables;
mod watch;

use crate::error::Error;
use clap::{Parser, Subcommand};

/// One example of each command, in the order `arbiter --help` lists them: by task.
const EXAMPLES: &str = "Examples:\n  arbiter play --rebel builtin:greedy --officer builtin:alphabeta --show\n  arbiter league --out results/mine builtin:random builtin:greedy bots/league/Team01.py\n  arbiter run course\n  arbiter check -j 2 bots/submissions\n  arbiter gauntlet --out results/g --candidate bots/league/Team03.py --baseline builtin:greedy --pairs 20\n  arbiter sprt --out results/s --candidate builtin:alphabeta --baseline builtin:greedy --elo0 0 --elo1 20\n  arbiter report results/mine\n  arbiter table results/mine --anchor random=0\n  arbiter merge --out results/all results/part1 results/part2\n  arbiter openings asalto --plies 8 --count 100\n  arbiter suite advance tests/data/advance/suite --bot builtin:grade6\n  arbiter solve battle --cases bots/java/battle/cases.txt --solver bots/java/battle/correct\n  arbiter perft asalto 4\n  arbiter doctor\n  arbiter bot alphabeta\n  arbiter console-bot grade5 name\n  arbiter autograde --baseline builtin:greedy --baseline builtin:alphabeta --pairs 2\n  arbiter watch results/course --listen 0.0.0.0:8080";

#[derive(Parser, Debug)]
#[command(
    name = "arbiter",
    version,
    about = "Referee, tournament runner and benchmarking harness for two-player game bots",
    after_help = EXAMPLES
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// Each command's own options are built only when it runs (`defer`): building every
/// command's parser took about a third of a millisecond of each start, the most of it in
/// first touches of code. The option structs a command flattens carry `//` comments, not
/// doc comments: a deferred struct's doc would replace the command's own description.
#[derive(Subcommand, Debug)]
#[command(defer = true)]
pub(crate) enum Command {
    /// Count the legal move sequences of a given length (a move-generator check).
    #[command(display_order = 13, after_help = "Example: arbiter perft asalto 4")]
    Perft(perft::PerftArgs),
    /// Play one game between two bots and print the result. Exit 0 when the game was
    /// played (whoever won), 1 when a bot could not be started (`spawn_failed`), 2 usage
    /// error.
    #[command(
        display_order = 1,
        after_help = "Example: arbiter play --rebel builtin:greedy --officer builtin:alphabeta --show"
    )]
    Play(play::PlayArgs),
    /// Round-robin league: every pair of bots plays role-swapped pairs of games.
    #[command(
        display_order = 2,
        after_help = "Example: arbiter league --out results/mine builtin:random builtin:greedy bots/league/Team01.py"
    )]
    League(league::LeagueArgs),
    /// A candidate against each baseline only.
    #[command(
        display_order = 5,
        after_help = "Example: arbiter gauntlet --out results/g --candidate bots/league/Team03.py --baseline builtin:greedy --pairs 20"
    )]
    Gauntlet(league::GauntletArgs),
    /// Grade one student's submission inside an autograder (Gradescope, PrairieLearn):
    /// its bot against the course's reference bots within a time budget, the score, a
    /// test per opponent and a leaderboard written to the platform's results.json. Exit 0
    /// when the results were written (whatever the bot did), 2 when the course's setup is
    /// wrong (the results then say so).
    #[command(
        display_order = 17,
        after_help = "Example: arbiter autograde --baseline builtin:greedy --baseline builtin:alphabeta --pairs 2
Outside Gradescope: arbiter autograde --submission my-bot --results out/results.json --baseline builtin:greedy"
    )]
    Autograde(autograde::AutogradeArgs),
    /// Run a tournament defined in tournaments.toml (default: the file's default).
    #[command(display_order = 3, after_help = "Example: arbiter run course")]
    Run(run::RunArgs),
    /// Sequential test: is the candidate stronger than the baseline? Exit 0 yes (H1),
    /// 1 no (H0), 3 inconclusive, 2 usage error.
    #[command(
        display_order = 6,
        after_help = "Example: arbiter sprt --out results/s --candidate builtin:alphabeta --baseline builtin:greedy --elo0 0 --elo1 20"
    )]
    Sprt(sprt::SprtArgs),
    /// Serve a live page of a tournament folder (league, gauntlet or SPRT, running or
    /// finished): standings, games in play, replays, a page per team. Prints its URL
    /// first; read-only; runs until Ctrl-C.
    #[command(
        display_order = 18,
        after_help = "Example: arbiter watch results/course --listen 0.0.0.0:8080"
    )]
    Watch(watch::WatchArgs),
    /// Print K random openings of N plies, each reaching a different position still in
    /// play, one a line in the format `--openings` reads.
    #[command(
        display_order = 10,
        after_help = "Example: arbiter openings asalto --plies 8 --count 100"
    )]
    Openings(openings::OpeningsArgs),
    /// Rebuild every table and the report of a tournament folder from its journal.
    #[command(
        display_order = 8,
        after_help = "Example: arbiter table results/mine --anchor random=0"
    )]
    Table(tables::TableArgs),
    /// Write the report of a tournament folder from its journal: report.md, report.tex,
    /// plots/*.svg and index.html (default: into DIR/report; --public: one for the class,
    /// into DIR/report-public).
    #[command(
        display_order = 7,
        after_help = "Example: arbiter report results/mine\nFor the class to read: arbiter report results/mine --public"
    )]
    Report(report::ReportArgs),
    /// Merge the folders of a sharded tournament (`--shard K/N`) into one, as if one run
    /// had played every game. Exit 0 merged, 2 when the shards do not fit together or
    /// (without --partial) a shard or a game is missing; nothing is written then.
    #[command(
        display_order = 9,
        after_help = "Example: arbiter merge --out results/all results/part1 results/part2"
    )]
    Merge(tables::MergeArgs),
    /// Start each bot (or each bot of a folder of submissions) under the tournament's
    /// limits, time its start-up and one move as each role, and print a table. Exit 0 when
    /// all pass, 1 when one fails, 2 on bad input.
    #[command(
        display_order = 4,
        after_help = "Example: arbiter check -j 2 bots/submissions"
    )]
    Check(submissions::CheckArgs),
    /// Grade course solvers on a file of cases (Battle: plan, score, node counts). Exit 0
    /// when every case passed, 1 when one failed, 2 usage error.
    #[command(
        display_order = 12,
        after_help = "Example: arbiter solve battle --cases bots/java/battle/cases.txt --solver bots/java/battle/correct"
    )]
    Solve(solve::SolveArgs),
    /// What confinement this machine gives bots: each layer with yes or no and why, and the
    /// runtimes found. Exit 0 when bots can be confined (namespaces, or Landlock and
    /// seccomp), 1 when not.
    #[command(display_order = 14, after_help = "Example: arbiter doctor")]
    Doctor,
    /// Builds a bot's jail and runs the bot in it (arbiter starts itself this way).
    #[command(hide = true)]
    Confine { jail: String },
    /// Serve a built-in bot over the protocol on stdin/stdout (the reference bot).
    #[command(display_order = 15, after_help = "Example: arbiter bot alphabeta")]
    Bot(play::BotArgs),
    /// Run a built-in bot as a course console program: `NAME white|black IN OUT` plays
    /// one move from the board file IN into OUT; `NAME name` prints its name.
    #[command(
        display_order = 16,
        after_help = "Example: arbiter console-bot grade5 name"
    )]
    ConsoleBot(console::ConsoleBotArgs),
    /// Grade a bot on a course position suite (Advance: levels 4 to 7, then games against
    /// grade7) and print the course's mark.
    #[command(
        display_order = 11,
        after_help = "Example: arbiter suite advance tests/data/advance/suite --bot builtin:grade6"
    )]
    Suite(suite::SuiteArgs),
}

/// Sets the C allocator's thresholds for handing memory back to the system: allocations
/// from 512 KiB are mapped on their own and unmapped when freed, and free memory past
/// 512 KiB at the top of a heap is given back. Left to itself, glibc raises both
/// thresholds to the largest block freed so far (4 MB once a 100,000-game schedule is
/// freed), after which each game thread keeps megabytes its games freed: a 40,000-game
/// league peaked at 22.5 MB instead of 19.1 MB, for 4% more time in the kernel.
fn keep_the_heap_tight() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's settings; called once, before any
    // thread of ours starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 512 << 10);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 10);
    }
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    // `arbiter confine JAIL` starts a confined bot where `arbiter-jail` is missing or of
    // another build: straight to the jail, without building the command line's parser.
    if let Some(jail) = crate::jail::helper::asked_to_confine() {
        return crate::jail::helper::run(&jail, false);
    }
    keep_the_heap_tight();
    let cli = Cli::parse();
    // A jail is built by a single-threaded process (a user namespace needs one): before
    // any signal thread starts.
    if let Command::Confine { jail } = &cli.command {
        return crate::jail::helper::run(jail, false);
    }
    // Commands that play bots take Ctrl-Z themselves (the bots stop with arbiter); the
    // others (tables, reports, tools) keep the terminal's own stop and no extra thread.
    let plays_bots = matches!(
        cli.command,
        Command::Play(_)
            | Command::League(_)
            | Command::Gauntlet(_)
            | Command::Autograde(_)
            | Command::Run(_)
            | Command::Sprt(_)
            | Command::Check(_)
            | Command::Suite(_)
            | Command::Solve(_)
    );
    signals::install(plays_bots);
    // Tools whose output is the whole of their work end when its reader quits; these go on.
    let works_on = plays_bots
        || matches!(
            cli.command,
            Command::Table(_) | Command::Report(_) | Command::Merge(_)
        );
    WORKS_ON.store(works_on, std::sync::atomic::Ordering::Relaxed);
    let result = match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        Command::Bot(args) => play::serve(args),
        Command::League(args) => league::league(args),
        Command::Gauntlet(args) => league::gauntlet(args),
        Command::Autograde(args) => autograde::run(args),
        Command::Run(args) => run::run(args),
        Command::Table(args) => tables::table(args),
        Command::Report(args) => report::run(args),
        Command::Merge(args) => tables::merge(args),
        Command::Sprt(args) => sprt::run(args),
        Command::Check(args) => submissions::check(args),
        Command::Openings(args) => openings::run(args),
        Command::ConsoleBot(args) => console::run(args),
        Command::Suite(args) => suite::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Doctor => Ok(doctor::run()),
        Command::Confine { .. } => unreachable!("handled above"),
    };
    crate::bots::console::remove_builds();
    match result {
        Ok(code) => code,
        Err(err) => {
            note!("arbiter: {err}");
            err.exit_code()
        }
    }
}

/// Set by the commands whose work is more than what they print (a league, a game, the
/// tables): a closed standard output ([`print`]) does not end them.
static WORKS_ON: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
/// Standard output was closed by its reader: what is printed from then on is dropped.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes `text` to standard output. A reader that has closed it has read all it wanted
/// (`arbiter openings ... | head -1`): a command whose output is all it does then ends at
/// once and quietly with [`exit::DONE`](crate::error::exit::DONE), as Unix tools do, its
/// bots killed first. A command that plays or writes files ([`WORKS_ON`]: `league ... |
/// head` read a line and quit) plays on to the end and writes every file: what it would
/// print is dropped, said once on stderr. Any other failure to write ends it with
/// [`exit::FAILED`](crate::error::exit::FAILED).
pub(crate) fn print(text: &str) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        let closed = e.kind() == std::io::ErrorKind::BrokenPipe;
        if closed && WORKS_ON.load(Ordering::Relaxed) {
            if !STDOUT_CLOSED.swap(true, Ordering::Relaxed) {
                note!(
                    "note: standard output was closed (its reader quit): arbiter goes on to \
                     the end and writes its files, but prints nothing more there"
                );
            }
            return;
        }
        crate::bots::process::kill_all_bots();
        crate::jail::leftovers::remove_live();
        crate::bots::console::remove_builds();
        if closed {
            std::process::exit(crate::error::exit::DONE);
        }
        note!("arbiter: cannot write to standard output: {e}");
        std::process::exit(crate::error::exit::FAILED);
    }
}

/// Reads a file the user named, with the path in the error.
fn read_file(path: &std::path::Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    /// A command's options are built when it runs (`defer`): a doc comment on an option
    /// struct it flattens would then replace the command's own description in its help.
    #[test]
    fn every_command_s_help_starts_with_its_own_description() {
        let cli = Cli::command();
        let mut checked = 0;
        for command in cli.get_subcommands() {
            let name = command.get_name();
            let about = command
                .get_about()
                .map(|about| about.to_string())
                .unwrap_or_default();
            for asked in [[name, "-h"], ["help", name]] {
                let shown = Cli::command()
                    .try_get_matches_from(std::iter::once("arbiter").chain(asked))
                    .expect_err("help is shown instead of a run")
                    .render()
                    .to_string();
                assert_eq!(
                    shown.lines().next().unwrap_or(""),
                    about,
                    "the first line of `arbiter {}`",
                    asked.join(" ")
                );
            }
            checked += 1;
        }
        assert!(checked >= 15, "only {checked} commands");
    }

    /// `arbiter --help` lists the commands by task, and its examples, one a command in
    /// that order, each parse as the command line they show.
    #[test]
    fn help_lists_the_commands_by_task_each_with_an_example_that_parses() {
        let help = Cli::command().render_help().to_string();
        let listed: Vec<&str> = help
            .lines()
            .skip_while(|l| *l != "Commands:")
            .skip(1)
            .take_while(|l| !l.is_empty())
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        let by_task = [
            "play", "league", "run", "check", "gauntlet", "sprt", "report", "table", "merge",
        ];
        assert_eq!(listed[..by_task.len()], by_task, "{help}");
        let examples: Vec<&str> = help
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .map(str::trim)
            .collect();
        let commands: Vec<&str> = listed.into_iter().filter(|c| *c != "help").collect();
        assert_eq!(examples.len(), commands.len(), "{help}");
        for (example, command) in examples.iter().zip(&commands) {
            let words = shlex::split(example).expect("an example is one command line");
            assert_eq!(words[1], *command, "examples in the commands' order");
            if let Err(e) = Cli::command().try_get_matches_from(&words) {
                panic!("`{example}` does not parse: {e}");
            }
            let own = Cli::command()
                .find_subcommand_mut(command)
                .expect("listed")
                .render_long_help()
                .to_string();
            assert!(
                own.contains(&format!("Example: {example}")),
                "`arbiter {command} --help` shows its example:\n{own}"
            );
        }
    }
}
