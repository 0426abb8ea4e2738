//! A bot of a class folder reads its own submission and nothing else of the folder: not
//! another team's helper module, folder or zip (playing or not), not a loose file of
//! nobody's, not the class list, not earlier results, not the teacher's notes. Each class is
//! shaped as a teacher's folder is (the README's `bots/submissions`: a single-file team, team
//! folders, a zip, with the roster and last week's results kept there), its spy a
//! single-file team that looks for all of it, says on stderr what it found, and carries it
//! out in its own exception, which its feedback quotes. Every command that plays a class's
//! bots is tried (`league` on the folder, `play` and `gauntlet` naming its files, `check`),
//! for Python course bots, Java players and console programs, at both levels, by an
//! ordinary user.

use crate::common::*;
use crate::visibility::{LEVELS, TOKEN, write_executable};
use std::path::{Path, PathBuf};

/// What a probe of the spy looks for.
enum Look {
    /// Reached when what it read shows the token.
    Victim,
    /// Reached when it reads or lists anything.
    Any,
    /// Reached when the folder's listing shows one of these names.
    Names(&'static [&'static str]),
    /// The spy's own: it must be reached.
    Own,
}

struct Probe {
    label: &'static str,
    path: String,
    look: Look,
}

fn probe(label: &'static str, path: impl AsRef<Path>, look: Look) -> Probe {
    Probe {
        label,
        path: path.as_ref().to_string_lossy().into_owned(),
        look,
    }
}

/// Python that runs every probe, says each on stderr as `SPY label: reached ...` or `SPY
/// label: blocked`, and keeps in `_FOUND` what it reached of what is not its own.
fn python_probes(probes: &[Probe]) -> String {
    let mut code = String::from(
        r#"import os, sys
_TOKEN = "VICTIM-" + "TOKEN-52c9e1"
_FOUND = []

def _look(path):
    if os.path.isdir(path):
        names = sorted(os.listdir(path))
        text = " ".join(names)
        for name in names:
            try:
                with open(os.path.join(path, name), "rb") as f:
                    text += f.read(1 << 16).decode("latin-1")
            except Exception:
                pass
        return names, text
    with open(path, "rb") as f:
        return [], f.read(1 << 20).decode("latin-1")

def _probe(label, path, kind, names=()):
    try:
        listed, text = _look(path)
        if kind == "victim":
            reached = _TOKEN in text
        elif kind == "names":
            reached = any(n in listed for n in names)
            text = " ".join(listed)
        else:
            reached = bool(text)
    except Exception as e:
        text, reached = type(e).__name__, False
    if reached:
        shown = text[:200].replace("\n", " ")
        print("SPY " + label + ": reached " + shown, file=sys.stderr)
        if kind != "own":
            _FOUND.append(label + ": " + shown)
    else:
        print("SPY " + label + ": blocked", file=sys.stderr)
    sys.stderr.flush()

"#,
    );
    for p in probes {
        let (kind, names) = match &p.look {
            Look::Victim => ("victim", Vec::new()),
            Look::Any => ("any", Vec::new()),
            Look::Names(names) => ("names", names.to_vec()),
            Look::Own => ("own", Vec::new()),
        };
        code.push_str(&format!(
            "_probe({:?}, {:?}, {kind:?}, {names:?})\n",
            p.label, p.path
        ));
    }
    code.push_str("SPY_FOUND = \"SPY found \" + (\"; \".join(_FOUND) or \"nothing\")\n");
    code
}

/// Checks what one run wrote: every probe reported, the spy's own files reached, nothing
/// else, the token nowhere, and the spy's exception saying it found nothing.
fn assert_own_only(probes: &[Probe], written: &str, what: &str) {
    for p in probes {
        let reached = format!("SPY {}: reached", p.label);
        match p.look {
            Look::Own => assert!(
                written.contains(&reached),
                "{what}: the spy could not read its own {}: {written}",
                p.label
            ),
            _ => {
                assert!(
                    !written.contains(&reached),
                    "{what}: the spy reached {}: {written}",
                    p.label
                );
                assert!(
                    written.contains(&format!("SPY {}: blocked", p.label)),
                    "{what}: no report of {}: {written}",
                    p.label
                );
            }
        }
    }
    assert_found_nothing(written, what);
}

/// The spy's exception (or stderr) carried nothing out, and no victim's text shows.
fn assert_found_nothing(written: &str, what: &str) {
    assert!(
        written.contains("SPY found nothing"),
        "{what}: the spy's exception is not there: {written}"
    );
    assert!(
        written
            .match_indices("SPY found ")
            .all(|(at, found)| written[at + found.len()..].starts_with("nothing")),
        "{what}: the spy carried something out: {written}"
    );
    assert!(
        !written.contains(TOKEN),
        "{what}: a victim's text reached what the run wrote: {written}"
    );
}

/// Everything the run left to be read ([`crate::visibility::everything_written`]) but the
/// zips it unpacked, which hold their teams' own files.
fn everything_written(results: &Path, output: &str) -> String {
    let unpacked = results.join("unpacked");
    let aside = results.with_extension("unpacked-aside");
    if unpacked.is_dir() {
        std::fs::rename(&unpacked, &aside).unwrap();
    }
    let written = crate::visibility::everything_written(results, output);
    if aside.is_dir() {
        std::fs::rename(&aside, &unpacked).unwrap();
    }
    written
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A zip of `files` (name, text, executable), stored uncompressed so that a reader of its
/// bytes sees the token, as a team hands it in.
fn zip(path: &Path, files: &[(&str, &str, bool)]) {
    let script = r#"import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    for name, text, executable in json.loads(sys.argv[2]):
        info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
        info.external_attr = (0o755 if executable else 0o644) << 16
        z.writestr(info, text)
"#;
    let list = serde_json::to_string(files).unwrap();
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .arg(list)
        .status()
        .unwrap();
    assert!(status.success(), "zip {}", path.display());
}

/// What the teacher keeps in the class folder beside the submissions: the class list, last
/// week's results (a journal and a team's feedback) and notes.
fn teachers_files(class: &Path, teams: &[&str]) {
    let mut roster = String::from("team,id,name,email\n");
    for (i, team) in teams.iter().enumerate() {
        roster.push_str(&format!(
            "{team},s{i:04},Student {i},student{i}@uni.example\n"
        ));
    }
    put(&class.join("roster.csv"), &roster);
    put(&class.join("week1/games.jsonl"), "{\"format\":4}\n");
    put(
        &class.join(format!("week1/feedback/{}.md", teams[1])),
        &format!("# {}\n{TOKEN}\n", teams[1]),
    );
    put(
        &class.join("notes.txt"),
        &format!("marking notes {TOKEN}\n"),
    );
}

/// The probes every spy runs of a class holding `team` (a team's folder with `helper`), a
/// zip `zip`, a loose file of nobody's `loose`, and the teacher's files.
fn class_probes(
    class: &Path,
    (team, helper): (&str, &str),
    zip: &str,
    loose: &str,
    listed: &'static [&'static str],
) -> Vec<Probe> {
    let helper_path = format!("{team}/{helper}");
    vec![
        probe("other team's helper beside it", &helper_path, Look::Victim),
        probe(
            "other team's helper where it is",
            class.join(&helper_path),
            Look::Victim,
        ),
        probe("other team's folder beside it", team, Look::Victim),
        probe("other team's zip beside it", zip, Look::Victim),
        probe(
            "other team's zip where it is",
            class.join(zip),
            Look::Victim,
        ),
        probe("nobody's file beside it", loose, Look::Victim),
        probe("class list beside it", "roster.csv", Look::Any),
        probe(
            "class list where it is",
            class.join("roster.csv"),
            Look::Any,
        ),
        probe("earlier results beside it", "week1", Look::Any),
        probe(
            "earlier results where they are",
            class.join("week1"),
            Look::Any,
        ),
        probe(
            "earlier feedback where it is",
            class.join("week1/feedback"),
            Look::Victim,
        ),
        probe("teacher's notes beside it", "notes.txt", Look::Victim),
        probe("the folder's listing", ".", Look::Names(listed)),
    ]
}

/// The README's class folder, with a spy for its single-file team (Team01, with a helper
/// module named after it): a team's folder `team12` with its helper `utils.py`, a zip
/// `Team14.zip`, a loose `utils.py` of nobody's, the class list, last week's results.
fn python_class(dir: &Path) -> (PathBuf, Vec<Probe>) {
    let class = dir.join("class");
    put(
        &class.join("team12/Team12.py"),
        "from utils import Player\n",
    );
    put(
        &class.join("team12/utils.py"),
        &format!("# {TOKEN}\n{}", course_random_bot()),
    );
    std::fs::create_dir_all(&class).unwrap();
    zip(
        &class.join("Team14.zip"),
        &[
            ("Team14/Team14.py", "from moves import Player\n", false),
            (
                "Team14/moves.py",
                &format!("# {TOKEN}\n{}", course_random_bot()),
                false,
            ),
        ],
    );
    put(&class.join("utils.py"), &format!("# {TOKEN}\nX = 1\n"));
    teachers_files(&class, &["Team01", "Team12", "Team14"]);
    let mut probes = class_probes(
        &class,
        ("team12", "utils.py"),
        "Team14.zip",
        "utils.py",
        &[
            "team12",
            "Team14.zip",
            "utils.py",
            "roster.csv",
            "week1",
            "notes.txt",
        ],
    );
    probes.push(probe("own helper", "Team01_help.py", Look::Own));
    let spy = format!(
        "{}\nimport Team01_help\n\nclass Player(Team01_help.RandomBot):\n    \
         def play_rebel(self, board):\n        raise RuntimeError(SPY_FOUND)\n\n    \
         def play_officer(self, board):\n        raise RuntimeError(SPY_FOUND)\n",
        python_probes(&probes)
    );
    put(&class.join("Team01.py"), &spy);
    // A helper named after its team: no `Player` of its own, so no bot.
    let helper = course_random_bot().replace("class Player", "class RandomBot");
    put(&class.join("Team01_help.py"), &helper);
    give_to_arbiter(dir);
    (class, probes)
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// Runs `args` (and `level`) as an ordinary user: its exit code and output.
fn arbiter_as_user(args: &[&str], level: &[&str]) -> (i32, String) {
    let mut all = args.to_vec();
    all.extend_from_slice(level);
    let mut cmd = arbiter_cmd(&all, &[]);
    cmd.env_remove("ARBITER_JAVA_CACHE");
    let (code, stdout, stderr) = run(&mut cmd);
    (code, format!("{stdout}{stderr}"))
}

#[test]
fn a_single_file_team_of_a_class_folder_reads_no_other_teams_files_nor_the_teachers() {
    for level in LEVELS {
        let dir = test_dir();
        let (class, probes) = python_class(dir.path());
        let out = dir.path().join("league");
        let roster = class.join("roster.csv");
        let (code, output) = arbiter_as_user(
            &[
                "league",
                "--game",
                "asalto",
                "--pairs",
                "1",
                "--round-limit",
                "6",
                "-j",
                "1",
                "--out",
                &text(&out),
                "--roster",
                &text(&roster),
                "--partial-roster",
                &text(&class),
            ],
            level,
        );
        assert_eq!(code, 0, "{level:?}: {output}");
        assert!(output.contains("3 bots in"), "{level:?}: {output}");
        assert!(
            output.contains("Team01_help.py: a helper of Team01 (named after it)"),
            "{level:?}: {output}"
        );
        let what = format!("league {level:?}");
        assert_own_only(&probes, &everything_written(&out, &output), &what);
        // The student's own feedback quotes its exception: what it carried out.
        let feedback = read(&out.join("feedback/Team01.md"));
        assert_found_nothing(&feedback, &what);
        // The other teams played from their own folders, their helpers with them.
        for (_, record) in journal_records(&out) {
            if !record.players.values().any(|b| b == "Team01") {
                assert!(record.detail.is_none(), "{what}: {record:?}");
            }
        }
    }
}

#[test]
fn play_gauntlet_and_check_naming_a_class_folders_bots_copy_no_other_teams_files() {
    for level in LEVELS {
        let dir = test_dir();
        let (class, probes) = python_class(dir.path());
        let (spy, team12) = (class.join("Team01.py"), class.join("team12/Team12.py"));
        let record = dir.path().join("game.json");
        let (_, output) = arbiter_as_user(
            &[
                "play",
                "--game",
                "asalto",
                "--rebel",
                &text(&spy),
                "--officer",
                &text(&team12),
                "--record",
                &text(&record),
            ],
            level,
        );
        assert!(record.is_file(), "{level:?}: {output}");
        let what = format!("play {level:?}");
        assert_own_only(&probes, &everything_written(&record, &output), &what);

        let out = dir.path().join("gauntlet");
        let (code, output) = arbiter_as_user(
            &[
                "gauntlet",
                "--game",
                "asalto",
                "--pairs",
                "1",
                "--round-limit",
                "6",
                "-j",
                "1",
                "--out",
                &text(&out),
                "--candidate",
                &text(&spy),
                "--baseline",
                &text(&team12),
            ],
            level,
        );
        assert_eq!(code, 0, "{level:?}: {output}");
        let what = format!("gauntlet {level:?}");
        assert_own_only(&probes, &everything_written(&out, &output), &what);

        // `check` shows each bot's exception: the spy's says what it found.
        let (code, output) = arbiter_as_user(&["check", "-j", "1", &text(&class)], level);
        assert_eq!(code, 1, "{level:?}: the spy fails its check: {output}");
        assert_found_nothing(&output, &format!("check {level:?}"));
    }
}

/// Java that runs every probe from a player's constructor, reporting as
/// [`python_probes`] does (the driver sends the player's stdout to its stderr log), and
/// throws what it found from its first move. `classes` are loaded by name: a neighbour's
/// helper class reached is one found.
fn java_spy(class: &str, probes: &[Probe], classes: &[&str]) -> String {
    let mut calls = String::new();
    for p in probes {
        let (kind, names) = match &p.look {
            Look::Victim => ("victim", String::new()),
            Look::Any => ("any", String::new()),
            Look::Names(names) => ("names", names.join("/")),
            Look::Own => ("own", String::new()),
        };
        calls.push_str(&format!(
            "        probe({:?}, {:?}, {kind:?}, {names:?});\n",
            p.label, p.path
        ));
    }
    for name in classes {
        calls.push_str(&format!("        load({name:?});\n"));
    }
    format!(
        r#"import java.awt.Color;
import java.nio.file.*;
import java.util.*;

public class {class} extends SequencePlayer {{
    static final String TOKEN = "VICTIM-" + "TOKEN-52c9e1";
    static final List<String> FOUND = new ArrayList<>();

    static String look(String path, List<String> listed) throws Exception {{
        Path p = Paths.get(path);
        if (Files.isDirectory(p)) {{
            StringBuilder text = new StringBuilder();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {{
                for (Path e : entries) {{
                    listed.add(e.getFileName().toString());
                    text.append(e.getFileName()).append(' ');
                    try {{ text.append(new String(Files.readAllBytes(e), "ISO-8859-1")); }} catch (Exception x) {{ }}
                }}
            }}
            return text.toString();
        }}
        return new String(Files.readAllBytes(p), "ISO-8859-1");
    }}

    static void report(String label, boolean reached, String text, boolean own) {{
        if (reached) {{
            String shown = text.substring(0, Math.min(200, text.length())).replace('\n', ' ');
            System.out.println("SPY " + label + ": reached " + shown);
            if (!own) FOUND.add(label + ": " + shown);
        }} else {{
            System.out.println("SPY " + label + ": blocked");
        }}
    }}

    static void probe(String label, String path, String kind, String names) {{
        String text = "";
        boolean reached;
        try {{
            List<String> listed = new ArrayList<>();
            text = look(path, listed);
            if (kind.equals("victim")) {{
                reached = text.contains(TOKEN);
            }} else if (kind.equals("names")) {{
                reached = false;
                for (String n : names.split("/")) reached |= listed.contains(n);
                text = String.join(" ", listed);
            }} else {{
                reached = !text.isEmpty();
            }}
        }} catch (Throwable e) {{
            reached = false;
        }}
        report(label, reached, text, kind.equals("own"));
    }}

    static void load(String name) {{
        boolean reached;
        try {{
            Class.forName(name);
            reached = true;
        }} catch (Throwable e) {{
            reached = false;
        }}
        report("class " + name, reached, name, false);
    }}

    public {class}() {{
{calls}        System.out.flush();
    }}

    @Override
    public Move chooseMove(Color[][] board, Color me) {{
        throw new RuntimeException("SPY found " + (FOUND.isEmpty() ? "nothing" : String.join("; ", FOUND)));
    }}
}}
"#
    )
}

#[test]
fn a_java_player_of_a_class_folder_reads_no_neighbours_helper_class_nor_the_teachers_files() {
    for level in LEVELS {
        let dir = test_dir();
        let class = dir.path().join("class");
        put(
            &class.join("teamB/PlayerB.java"),
            "public class PlayerB extends SequencePlayer {\n    \
             final String secret = BHelper.SECRET;\n}\n",
        );
        put(
            &class.join("teamB/BHelper.java"),
            &format!("// {TOKEN}\nclass BHelper {{ static final String SECRET = \"{TOKEN}\"; }}\n"),
        );
        zip(
            &class.join("PlayerC.zip"),
            &[(
                "PlayerC/PlayerC.java",
                &format!("// {TOKEN}\npublic class PlayerC extends RandomPlayer {{}}\n"),
                false,
            )],
        );
        put(
            &class.join("Cells.java"),
            &format!("// {TOKEN}\nclass Cells {{}}\n"),
        );
        teachers_files(&class, &["PlayerSpy", "PlayerB", "PlayerC"]);
        let mut probes = class_probes(
            &class,
            ("teamB", "BHelper.java"),
            "PlayerC.zip",
            "Cells.java",
            &[
                "teamB",
                "PlayerC.zip",
                "Cells.java",
                "roster.csv",
                "week1",
                "notes.txt",
            ],
        );
        probes.push(probe("own file", "PlayerSpy.java", Look::Own));
        put(
            &class.join("PlayerSpy.java"),
            &java_spy("PlayerSpy", &probes, &["BHelper", "Cells"]),
        );
        give_to_arbiter(dir.path());
        let out = dir.path().join("league");
        let (code, output) = arbiter_as_user(
            &[
                "league",
                "--game",
                "gomoku",
                "--pairs",
                "1",
                "-j",
                "1",
                "--out",
                &text(&out),
                &text(&class),
            ],
            level,
        );
        assert_eq!(code, 0, "{level:?}: {output}");
        assert!(output.contains("3 bots in"), "{level:?}: {output}");
        let what = format!("league {level:?}");
        assert_own_only(&probes, &everything_written(&out, &output), &what);
        for name in ["BHelper", "Cells"] {
            let label = format!("SPY class {name}: blocked");
            assert!(
                output.contains(&label) || journal_text(&out).contains(&label),
                "{what}"
            );
        }
        assert_found_nothing(&read(&out.join("feedback/PlayerSpy.md")), &what);
        // The neighbour compiled with its own helper and played.
        for (_, record) in journal_records(&out) {
            if !record.players.values().any(|b| b == "PlayerSpy") {
                assert!(record.detail.is_none(), "{what}: {record:?}");
            }
        }

        let record = dir.path().join("game.json");
        let (_, output) = arbiter_as_user(
            &[
                "play",
                "--game",
                "gomoku",
                "--white",
                &text(&class.join("PlayerSpy.java")),
                "--black",
                &text(&class.join("teamB/PlayerB.java")),
                "--record",
                &text(&record),
            ],
            level,
        );
        assert!(record.is_file(), "{level:?}: {output}");
        let what = format!("play {level:?}");
        assert_own_only(&probes, &everything_written(&record, &output), &what);
    }
}

#[test]
fn a_console_program_of_a_class_folder_reads_its_own_notes_and_nothing_else_of_the_folder() {
    for level in LEVELS {
        let dir = test_dir();
        let class = dir.path().join("class");
        // Each bot gives up at its first move: a game is one run of the bot to move.
        let gives_up = format!("#!/usr/bin/python3\n# {TOKEN}\nimport sys\nsys.exit(3)\n");
        std::fs::create_dir_all(class.join("carol")).unwrap();
        write_executable(&class.join("carol/bot"), &gives_up);
        put(&class.join("carol/helper.txt"), &format!("{TOKEN}\n"));
        zip(&class.join("dave.zip"), &[("dave/bot", &gives_up, true)]);
        put(&class.join("table.dat"), &format!("{TOKEN}\n"));
        teachers_files(&class, &["alice", "carol", "dave"]);
        let mut probes = class_probes(
            &class,
            ("carol", "helper.txt"),
            "dave.zip",
            "table.dat",
            &[
                "carol",
                "dave.zip",
                "table.dat",
                "roster.csv",
                "week1",
                "notes.txt",
            ],
        );
        probes.push(probe("own notes", "alice-notes.txt", Look::Own));
        let spy = format!(
            "#!/usr/bin/python3\n{}\nprint(SPY_FOUND, file=sys.stderr)\nsys.exit(3)\n",
            python_probes(&probes)
        );
        write_executable(&class.join("alice"), &spy);
        put(&class.join("alice-notes.txt"), "the spy's own notes\n");
        give_to_arbiter(dir.path());
        let out = dir.path().join("league");
        let (code, output) = arbiter_as_user(
            &[
                "league",
                "--game",
                "advance",
                "--pairs",
                "1",
                "-j",
                "1",
                "--out",
                &text(&out),
                &text(&class),
            ],
            level,
        );
        assert_eq!(code, 0, "{level:?}: {output}");
        assert_eq!(
            journal_records(&out).len(),
            6,
            "{level:?}: three bots played: {output}"
        );
        let what = format!("league {level:?}");
        assert_own_only(&probes, &everything_written(&out, &output), &what);

        let record = dir.path().join("game.json");
        let spy = format!("console:{}", text(&class.join("alice")));
        let (_, output) = arbiter_as_user(
            &[
                "play",
                "--game",
                "advance",
                "--white",
                &spy,
                "--black",
                "builtin:grade4",
                "--record",
                &text(&record),
            ],
            level,
        );
        assert!(record.is_file(), "{level:?}: {output}");
        let what = format!("play {level:?}");
        assert_own_only(&probes, &everything_written(&record, &output), &what);
    }
}

/// A protocol bot that answers every turn with the same move, read from its folder.
const ECHO_BOT: &str = "import os\nlines = os.fdopen(0, 'rb')\nlines.readline()\nos.write(1, b'{\"type\":\"ready\"}\\n')\nwhile True:\n    line = lines.readline()\n    if not line or b'\"end\"' in line:\n        break\n    os.write(1, b'{\"type\":\"move\",\"move\":[[0,0],[0,1]]}\\n')\n";

#[test]
fn a_protocol_bot_on_the_course_bots_interpreter_named_by_path_leaves_the_course_bot_its_file() {
    for level in LEVELS {
        let dir = test_dir();
        // An interpreter outside the system's folders, as a pyenv's or a venv's is, which
        // both bots run on: no one's file, so hidden from neither.
        let python = dir.path().join("venv/bin/python");
        std::fs::create_dir_all(python.parent().unwrap()).unwrap();
        write_executable(&python, "#!/bin/sh\nexec python3 \"$@\"\n");
        let course = dir.path().join("same_move_bot.py");
        put(
            &course,
            "class Player:\n    def play_rebel(self, board):\n        return [(0, 0), (0, 1)]\n\n    def play_officer(self, board):\n        return [(0, 0), (0, 1)]\n",
        );
        let echo = dir.path().join("protocol_echo_bot.py");
        put(&echo, ECHO_BOT);
        give_to_arbiter(dir.path());
        let officer = format!("{} {}", python.display(), echo.display());
        let (code, out) = arbiter_as_user(
            &[
                "play",
                "--python",
                python.to_str().unwrap(),
                "--rebel",
                course.to_str().unwrap(),
                "--officer",
                &officer,
            ],
            level,
        );
        assert_eq!(code, 0, "{level:?}: {out}");
        assert!(
            out.contains("tie by round_limit after 1000 rounds"),
            "{level:?}: both bots play their 1000 rounds: {out}"
        );
    }
}

#[test]
fn a_script_named_without_its_folder_is_read_from_the_working_folder() {
    for level in LEVELS {
        let dir = test_dir();
        put(&dir.path().join("protocol_echo_bot.py"), ECHO_BOT);
        give_to_arbiter(dir.path());
        let mut all = vec![
            "play",
            "--rebel",
            "python3 protocol_echo_bot.py",
            "--officer",
            "builtin:random",
        ];
        all.extend_from_slice(level);
        let mut cmd = arbiter_cmd(&all, &[]);
        cmd.current_dir(dir.path());
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "{level:?}: {stdout}{stderr}");
        assert!(
            !stdout.contains("crash") && stdout.contains("illegal moves: rebel"),
            "{level:?}: the script started and played: {stdout}{stderr}"
        );
    }
}
