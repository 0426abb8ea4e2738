//! What a team's own bot reported, made fit for its feedback: the whole text of each of
//! its failures (a traceback, a stack trace, a crash's stderr tail) and its own stderr in
//! those games, read from the journal's records for its side of each game only, bounded,
//! folded and with every path cut to a file's name (no folder of the teacher's, nor a
//! platform's folder named after a student).

use crate::record::GameRecord;

/// How many game numbers a folded failure lists before it only counts the rest.
pub(super) const GAMES_LISTED: usize = 8;

/// The most distinct texts of each kind (errors, standard error tails) a team's feedback
/// shows: a bot that fails alike in every game shows one; one whose every failure differs
/// (a timestamp in each) must not make the file as long as the journal.
const TEXTS_SHOWN: usize = 3;
/// The last lines of a text that are shown, at most, and of those the last characters:
/// where a traceback names the error.
const TEXT_LINES: usize = 40;
const TEXT_CHARS: usize = 4000;

/// What a team's own bot reported in the games it lost by its own failure, read from the
/// journal's records: the failure's whole text (a traceback, a stack trace, a crash's
/// stderr tail) and the bot's own stderr in those games, each distinct text once with its
/// games. Only the team's own side of a game is read: never its opponent's stderr, nor
/// the opponent's half of a game both lost.
#[derive(Default)]
pub(super) struct OwnTexts {
    errors: Vec<(String, Vec<u64>)>,
    stderr: Vec<(String, Vec<u64>)>,
    /// Games whose text was not shown, past [`TEXTS_SHOWN`] distinct ones.
    errors_unshown: usize,
    stderr_unshown: usize,
}

impl OwnTexts {
    /// Takes what the side playing `role` in `record` (game `id`), a failure of its own,
    /// reported.
    pub(super) fn add(&mut self, id: u64, record: &GameRecord, role: &str) {
        let error = own_error(record, role).map(bounded);
        // A one-line error is the failure's own line, which the Failures list gives.
        if let Some(error) = error.as_ref().filter(|e| e.lines().count() > 1) {
            fold(&mut self.errors, &mut self.errors_unshown, error, id);
        }
        let stderr = record
            .logs
            .get(role)
            .map(|log| bounded(&log.stderr))
            .unwrap_or_default();
        // What the error already shows whole (a crash's stderr tail) is not shown twice.
        let shown = error.as_deref().unwrap_or_default();
        if !stderr.trim().is_empty() && !shown.contains(stderr.trim()) {
            fold(&mut self.stderr, &mut self.stderr_unshown, &stderr, id);
        }
    }

    /// Whether the feedback shows the whole text of an error.
    pub(super) fn shows_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// The section `Your bot's errors`, or nothing when there is no text to show.
    pub(super) fn section(&self) -> String {
        if self.errors.is_empty() && self.stderr.is_empty() {
            return String::new();
        }
        let mut out = format!(
            "\n## Your bot's errors\n\nWhat your own bot reported in the games it lost by \
             its own failure, as recorded: each distinct text once, its last {TEXT_LINES} \
             lines at most, folders cut to file names.\n"
        );
        let games = |ids: &[u64]| {
            let mut ids = ids.to_vec();
            ids.sort_unstable();
            let mut listed: Vec<String> =
                ids.iter().take(GAMES_LISTED).map(u64::to_string).collect();
            let last = match ids.len().saturating_sub(GAMES_LISTED) {
                0 => listed.pop().unwrap_or_default(),
                n => format!("{n} more"),
            };
            match listed.is_empty() {
                true => format!("game {last}"),
                false => format!("games {} and {last}", listed.join(", ")),
            }
        };
        for (text, ids) in &self.errors {
            out.push_str(&format!(
                "\nThe error in {}:\n\n{}",
                games(ids),
                crate::untrusted::text::markdown_block(text)
            ));
        }
        for (text, ids) in &self.stderr {
            out.push_str(&format!(
                "\nWhat your bot wrote to its standard error in {} (its last lines):\n\n{}",
                games(ids),
                crate::untrusted::text::markdown_block(text)
            ));
        }
        for (n, what) in [
            (self.errors_unshown, "error"),
            (self.stderr_unshown, "standard error"),
        ] {
            if n > 0 {
                out.push_str(&format!(
                    "\nThe {what} text of {n} more game{} differed from those above and is \
                     not shown.\n",
                    if n == 1 { "" } else { "s" }
                ));
            }
        }
        out
    }
}

/// Adds game `id`'s `text` to `texts` (beside an equal one, else as a new one while fewer
/// than [`TEXTS_SHOWN`] are), or counts it as not shown.
fn fold(texts: &mut Vec<(String, Vec<u64>)>, unshown: &mut usize, text: &str, id: u64) {
    match texts.iter().position(|(t, _)| t == text) {
        Some(i) => texts[i].1.push(id),
        None if texts.len() < TEXTS_SHOWN => texts.push((text.to_string(), vec![id])),
        None => *unshown += 1,
    }
}

/// The whole text of the failure of the side playing `role` in `record`: the game's
/// detail, which is the failing side's, or of a game both lost, its own part of it alone.
fn own_error<'r>(record: &'r GameRecord, role: &str) -> Option<&'r str> {
    let detail = record.detail.as_deref()?;
    if record.reason != crate::record::BOTH_FAILED {
        return Some(detail);
    }
    // `FIRST LINE\n\nROLE1: DETAIL1\n\nROLE2: DETAIL2` (record::both_failed_detail): a
    // bot's text could hold the other marker, and then which part is whose cannot be
    // told, so none is shown.
    let [first, second] = record.roles.as_slice() else {
        return None;
    };
    let (start, middle) = (format!("\n\n{first}: "), format!("\n\n{second}: "));
    if detail.matches(&middle).count() != 1 {
        return None;
    }
    let (before, theirs) = detail.split_once(&middle)?;
    let ours = before.split_once(&start)?.1;
    match role {
        r if r == first.as_str() => Some(ours),
        r if r == second.as_str() => Some(theirs),
        _ => None,
    }
}

/// The last [`TEXT_LINES`] lines of `text`, at most [`TEXT_CHARS`] characters, every path
/// in them cut to its file's name, and a first line saying what was left out.
fn bounded(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let skip = lines.len().saturating_sub(TEXT_LINES);
    let mut kept = lines[skip..]
        .iter()
        .map(|line| file_names_only(&quoted_paths_to_names(line)))
        .collect::<Vec<_>>()
        .join("\n");
    let chars = kept.chars().count();
    if chars > TEXT_CHARS {
        kept = kept.chars().skip(chars - TEXT_CHARS).collect();
    }
    match skip > 0 || chars > TEXT_CHARS {
        true => format!("[... its start left out]\n{kept}"),
        false => kept,
    }
}

/// `line` with every path in double quotes (a Python traceback's `File "PATH"`) cut to
/// its file's name as a whole: a folder's name with a space in it (a platform's
/// `Alice Smith_12345_...`) would otherwise leave its first words behind.
fn quoted_paths_to_names(line: &str) -> String {
    let mut parts: Vec<String> = line.split('"').map(str::to_string).collect();
    // Inside quotes are the odd parts before the last: the last is after every quote.
    let closed = parts.len() - 1;
    for part in parts.iter_mut().take(closed).skip(1).step_by(2) {
        if part.contains('/') && !part.contains("://") {
            let name = part
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or_default();
            *part = name.to_string();
        }
    }
    parts.join("\"")
}

/// `text` with every path cut to its last part, a file's name: feedback names a team's own
/// files and no folder of the teacher's or of another team.
pub(super) fn file_names_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(&path_to_name(word));
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// One word with its path cut to the last part, the quotes and punctuation around it kept.
fn path_to_name(word: &str) -> String {
    let edge = |c: char| "'\"`()[]<>,;:".contains(c);
    let start = word.find(|c| !edge(c)).unwrap_or(word.len());
    // The end of the last character that is no edge, whatever its length in bytes.
    let end = word
        .char_indices()
        .rfind(|&(_, c)| !edge(c))
        .map_or(start, |(i, c)| i + c.len_utf8())
        .max(start);
    let core = &word[start..end];
    if !core.contains('/') || core.contains("://") {
        return word.to_string();
    }
    let name = core
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    format!("{}{name}{}", &word[..start], &word[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_ending_in_a_wide_character_is_cut_to_its_name_without_a_panic() {
        assert_eq!(file_names_only("at /home/t/a\u{202e}"), "at a\u{202e}");
        assert_eq!(file_names_only("(/x/y/漢.py)"), "(漢.py)");
        assert_eq!(file_names_only("[31m\u{202e}"), "[31m\u{202e}");
    }

    #[test]
    fn a_quoted_path_with_spaces_is_cut_to_its_file_name_whole() {
        let line = "  File \"/t/moodle/Bob Jones_12346_assignsubmission_file_/Team02.py\", line 5";
        assert_eq!(
            file_names_only(&quoted_paths_to_names(line)),
            "  File \"Team02.py\", line 5"
        );
        assert_eq!(
            quoted_paths_to_names("say \"a/b c\" and \"x/y"),
            "say \"b c\" and \"x/y"
        );
        assert_eq!(quoted_paths_to_names("no quotes/here"), "no quotes/here");
    }

    fn record(reason: &str, detail: &str) -> GameRecord {
        GameRecord {
            game: "asalto".into(),
            roles: vec!["rebel".into(), "officer".into()],
            players: Default::default(),
            winner: None,
            reason: reason.into(),
            detail: Some(detail.into()),
            rounds: 0,
            plies: 0,
            illegal: Default::default(),
            seed: 0,
            start: 0,
            start_board: Default::default(),
            opening: Default::default(),
            moves: Vec::new(),
            final_board: Default::default(),
            logs: Default::default(),
            machine: Default::default(),
            duration_ms: None,
        }
    }

    #[test]
    fn of_a_game_both_lost_each_side_gets_its_own_part_and_no_part_when_one_could_pass_for_the_other()
     {
        let detail = crate::record::both_failed_detail([
            ("rebel", "exception", "Traceback:\n\nOURS"),
            ("officer", "crash", "exited\nTHEIRS"),
        ]);
        let both = record(crate::record::BOTH_FAILED, &detail);
        assert_eq!(own_error(&both, "rebel"), Some("Traceback:\n\nOURS"));
        assert_eq!(own_error(&both, "officer"), Some("exited\nTHEIRS"));
        // A text holding the other side's marker: whose is which cannot be told.
        let forged = crate::record::both_failed_detail([
            ("rebel", "exception", "x"),
            ("officer", "crash", "y\n\nofficer: z"),
        ]);
        let forged = record(crate::record::BOTH_FAILED, &forged);
        assert_eq!(own_error(&forged, "rebel"), None);
        assert_eq!(own_error(&forged, "officer"), None);
        assert_eq!(own_error(&record("exception", "E"), "rebel"), Some("E"));
    }

    #[test]
    fn a_long_text_keeps_its_last_lines_and_says_its_start_was_left_out() {
        let text: String = (0..100)
            .map(|i| format!("line {i} at /home/t/x.py\n"))
            .collect();
        let kept = bounded(&text);
        assert!(
            kept.starts_with("[... its start left out]\nline 60 at x.py\n"),
            "{kept}"
        );
        assert!(kept.ends_with("line 99 at x.py"), "{kept}");
        assert_eq!(bounded("short\n"), "short");
    }
}
