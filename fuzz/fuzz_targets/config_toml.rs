//! The tournaments.toml loader on any text: an error names a line of the text, never a
//! panic; a file that loads yields its tournaments and each bot's limits without panic.
#![no_main]

use arbiter::config::{self, Config};
use arbiter::error::Error;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fn line_in_text(e: &Error, text: &str) {
    if let Error::Input { line, .. } = e {
        assert!(*line <= text.lines().count() + 1, "line {line} of {}", text.lines().count());
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let config = match Config::parse(Path::new("fuzz.toml"), text.to_string()) {
        Ok(c) => c,
        Err(e) => return line_in_text(&e, text),
    };
    if let Err(e) = config.tournament(None) {
        line_in_text(&e, text);
    }
    for (name, t) in &config.file.tournaments {
        let _ = config.tournament(Some(name));
        for bot in t.bots.get_ref() {
            if let Err(e) = config::confinement(&config, t, bot) {
                line_in_text(&e, text);
            }
        }
    }
});
