//! `arbiter watch DIR`, and `--watch` of the commands that run a tournament: the live page
//! of a tournament folder (`crate::watch`).

use crate::error::Error;
use std::path::{Path, PathBuf};

/// How long a run with `--watch` keeps its page up after its end, so that every open page
/// fetches the final tables (a page polls once a second).
const LINGER: std::time::Duration = std::time::Duration::from_secs(3);

#[derive(clap::Args, Debug)]
pub(crate) struct WatchArgs {
    /// The tournament folder (a league's, a gauntlet's or an SPRT's --out, running or
    /// finished; a merged folder of shards).
    pub dir: PathBuf,
    #[command(flatten)]
    pub listen: Listen,
}

// Where the page is served (a plain comment: a flattened struct's doc would become the
// command's own).
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Listen {
    /// Serve the page on ADDR:PORT (default 127.0.0.1 and a free port: this machine only;
    /// 0.0.0.0:8080 serves a classroom's network). The page is read-only.
    #[arg(long, value_name = "ADDR:PORT", default_value = crate::watch::DEFAULT_LISTEN, help_heading = "Live page")]
    pub listen: String,
}

// `--watch` of `league`, `gauntlet` and `sprt`.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct WatchOptions {
    /// Serve a live page of the run (standings, games in play, replays) while it plays;
    /// its URL is printed first. `arbiter watch DIR` serves it at any time.
    #[arg(long, help_heading = "Live page")]
    pub watch: bool,
    #[command(flatten)]
    pub listen: Listen,
}

/// `arbiter watch DIR`: serves the page, its URL the first line printed, until Ctrl-C
/// (or SIGTERM) ends arbiter.
pub(crate) fn run(args: WatchArgs) -> Result<i32, Error> {
    crate::watch::check_folder(&args.dir)?;
    let _server = crate::watch::Server::start(&args.dir, &args.listen.listen)?;
    say!("{}", _server.url());
    note!(
        "serving the live page of {} (read-only) until Ctrl-C",
        args.dir.display()
    );
    loop {
        std::thread::park();
    }
}

/// The page of a run into `dir`, served beside it when `--watch` asks: started before the
/// run's first game, its URL printed first. Dropped at the run's end, it stays up a few
/// seconds more for the pages open to fetch the final tables.
pub(crate) struct Beside {
    server: Option<crate::watch::Server>,
}

impl Beside {
    /// `json`: the command's standard output is one JSON line, so the URL goes to
    /// standard error.
    pub(crate) fn start(options: &WatchOptions, dir: &Path, json: bool) -> Result<Beside, Error> {
        if !options.watch {
            return Ok(Beside { server: None });
        }
        let server = crate::watch::Server::start(dir, &options.listen.listen)?;
        match json {
            true => note!("{}", server.url()),
            false => say!("{}", server.url()),
        }
        Ok(Beside {
            server: Some(server),
        })
    }
}

impl Drop for Beside {
    fn drop(&mut self) {
        if let Some(server) = self.server.take() {
            std::thread::sleep(LINGER);
            server.stop();
        }
    }
}
