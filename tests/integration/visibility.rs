//! No layout shows a bot another entrant's files, nor the results: what a jail hides is the
//! run's own list of entrants, whatever their files are named or hold. Each layout is run
//! at both levels (namespaces by default, `--sandbox landlock` for level 2) by an ordinary
//! user. A spy looks for each of its neighbours' files and the results, and reports on
//! stderr; the victims' files hold a token that must reach neither the spy nor anything
//! the run writes (the journal, games.csv, the feedback, the output).

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// In every victim's file, never in a spy's (which builds it from two halves).
pub(crate) const TOKEN: &str = "VICTIM-TOKEN-52c9e1";

/// The levels every layout is tried at: the default, and level 2 forced.
pub(crate) const LEVELS: [&[&str]; 2] = [&[], &["--sandbox", "landlock"]];

/// What a spy looks at: `Victim` counts as reached when it shows the token, `Results` when
/// it lists or reads anything, `Own` is its own file, which it must reach.
enum Look {
    Victim,
    Results,
    Own,
}

struct Probe {
    label: &'static str,
    path: PathBuf,
    look: Look,
}

fn probe(label: &'static str, path: impl Into<PathBuf>, look: Look) -> Probe {
    Probe {
        label,
        path: path.into(),
        look,
    }
}

/// Python that runs every probe and reports each as `SPY label: reached ...` (with what
/// it read) or `SPY label: blocked`, on stderr.
fn python_probes(probes: &[Probe]) -> String {
    let mut code = String::from(
        r#"import os, sys
_TOKEN = "VICTIM-" + "TOKEN-52c9e1"

def _look(path):
    if os.path.isdir(path):
        names = sorted(os.listdir(path))
        text = " ".join(names)
        for name in names:
            try:
                with open(os.path.join(path, name), errors="replace") as f:
                    text += f.read(4096)
            except Exception:
                pass
        return text
    with open(path, errors="replace") as f:
        return f.read(1 << 20)

def _probe(label, path, kind):
    try:
        text = _look(path)
        reached = _TOKEN in text if kind == "victim" else bool(text)
    except Exception as e:
        text, reached = type(e).__name__, False
    if reached:
        print("SPY " + label + ": reached " + text[:300].replace("\n", " "), file=sys.stderr)
    else:
        print("SPY " + label + ": blocked", file=sys.stderr)
    sys.stderr.flush()

"#,
    );
    for p in probes {
        let kind = match p.look {
            Look::Victim => "victim",
            Look::Results | Look::Own => "any",
        };
        code.push_str(&format!(
            "_probe({:?}, {:?}, {kind:?})\n",
            p.label,
            p.path.to_string_lossy()
        ));
    }
    code
}

/// Everything the run left to be read: its output and every file under `results`, but the
/// copies a league keeps of each team's version (`versions/`: its own files, which the
/// teacher has, see `kept_copies_hold_their_own_team_only`).
pub(crate) fn everything_written(results: &Path, output: &str) -> String {
    fn walk(dir: &Path, text: &mut String) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() && path.ends_with("versions") && dir.join("games.jsonl").is_file() {
                kept_copies_hold_their_own_team_only(&path);
            } else if path.is_dir() {
                walk(&path, text);
            } else if let Ok(bytes) = std::fs::read(&path) {
                text.push_str(&String::from_utf8_lossy(&bytes));
            }
        }
    }
    let mut text = output.to_string();
    if results.is_dir() {
        walk(results, &mut text);
        // The journal's records are packed: read them whole, logs and all.
        if results.join("games.jsonl").is_file() {
            text.push_str(&journal_text(results));
        }
    } else if let Ok(bytes) = std::fs::read(results) {
        text.push_str(&String::from_utf8_lossy(&bytes));
    }
    text
}

/// Each copy a league kept of a team's version (`versions/TEAM/DIGEST/FOLDER/`) holds no
/// other entrant's file: none named after another team of the copies, nor a class list.
fn kept_copies_hold_their_own_team_only(versions: &Path) {
    let teams: Vec<String> = std::fs::read_dir(versions)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            match entry.path().is_dir() {
                true => files(&entry.path(), out),
                false => out.push(entry.path()),
            }
        }
    }
    for team in &teams {
        let mut kept = Vec::new();
        files(&versions.join(team), &mut kept);
        for file in kept {
            let name = file.file_name().unwrap().to_string_lossy().to_lowercase();
            let foreign = teams
                .iter()
                .any(|t| t != team && name.starts_with(&t.to_lowercase()));
            assert!(
                !foreign && !name.contains("roster") && !name.ends_with(".csv"),
                "{team}'s kept version holds {}",
                file.display()
            );
        }
    }
}

/// Checks one run: every probe reported, the victims and results blocked, the spy's own
/// file reached, and the token nowhere in what the run wrote.
fn assert_hidden(probes: &[Probe], written: &str, level: &[&str]) {
    eprintln!(
        "WRITTEN {}",
        written
            .lines()
            .filter(|l| l.contains("SPY"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    for p in probes {
        let (reached, blocked) = (
            format!("SPY {}: reached", p.label),
            format!("SPY {}: blocked", p.label),
        );
        match p.look {
            Look::Own => assert!(
                written.contains(&reached),
                "{level:?}: the spy could not read its own {}: {written}",
                p.label
            ),
            _ => {
                assert!(
                    !written.contains(&reached),
                    "{level:?}: the spy reached {}: {written}",
                    p.label
                );
                assert!(
                    written.contains(&blocked),
                    "{level:?}: no report of {}: {written}",
                    p.label
                );
            }
        }
    }
    assert!(
        !written.contains(TOKEN),
        "{level:?}: a victim's text reached what the run wrote: {written}"
    );
}

pub(crate) fn write_executable(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A course Asalto bot that plays like the course's random bot.
fn course_bot_with(prefix: &str) -> String {
    format!("{prefix}\n{}", course_random_bot())
}

/// A course spy: its probes, then a `Player` from its own helper module.
fn course_spy(probes: &[Probe]) -> String {
    format!(
        "{}\nimport spyhelp\n\nclass Player(spyhelp.Player):\n    pass\n",
        python_probes(probes)
    )
}

fn league_as_user(out: &Path, level: &[&str], bots: &[&Path]) -> String {
    let out = out.to_string_lossy().into_owned();
    let mut args = vec![
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
        &out,
    ];
    args.extend_from_slice(level);
    let bots: Vec<String> = bots
        .iter()
        .map(|b| b.to_string_lossy().into_owned())
        .collect();
    args.extend(bots.iter().map(String::as_str));
    let (code, stdout, stderr) = run(&mut arbiter_cmd(&args, &[]));
    assert_eq!(code, 0, "{level:?}: {stdout}{stderr}");
    format!("{stdout}{stderr}")
}

#[test]
fn a_team_binding_its_player_another_way_is_hidden_from_the_team_beside_it() {
    for level in LEVELS {
        let dir = test_dir();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        let results = dir.path().join("results");
        // `Player = Bot`, and `from impl import MyBot as Player`: no `class Player`.
        std::fs::write(
            class.join("Team02.py"),
            course_bot_with(&format!("# {TOKEN}")).replace("class Player", "class Bot")
                + "\nPlayer = Bot\n",
        )
        .unwrap();
        std::fs::write(
            class.join("impl03.py"),
            course_random_bot().replace("class Player", "class MyBot"),
        )
        .unwrap();
        std::fs::write(
            class.join("Team03.py"),
            format!("# {TOKEN}\nfrom impl03 import MyBot as Player\n"),
        )
        .unwrap();
        let probes = [
            probe("Team02 where it is", class.join("Team02.py"), Look::Victim),
            probe("Team02 beside it", "Team02.py", Look::Victim),
            probe("Team03 where it is", class.join("Team03.py"), Look::Victim),
            probe("Team03 beside it", "Team03.py", Look::Victim),
            probe("results folder", &results, Look::Results),
            probe("live journal", results.join("games.jsonl"), Look::Results),
            probe("own helper", "spyhelp.py", Look::Own),
        ];
        std::fs::write(class.join("Team01.py"), course_spy(&probes)).unwrap();
        std::fs::write(class.join("spyhelp.py"), course_random_bot()).unwrap();
        give_to_arbiter(dir.path());
        // The class's folder, as handed in: its scan finds the three teams.
        let output = league_as_user(&results, level, &[&class]);
        assert!(output.contains("3 bots in"), "{level:?}: {output}");
        assert_hidden(&probes, &everything_written(&results, &output), level);
    }
}

#[test]
fn two_scripts_played_from_one_folder_do_not_read_each_other_nor_the_record() {
    for level in LEVELS {
        let dir = test_dir();
        let record = dir.path().join("game.json");
        std::fs::write(
            dir.path().join("bob.py"),
            course_bot_with(&format!("# {TOKEN}")),
        )
        .unwrap();
        let probes = [
            probe("bob where it is", dir.path().join("bob.py"), Look::Victim),
            probe("bob beside it", "bob.py", Look::Victim),
            probe("record", &record, Look::Results),
            probe("own helper", "spyhelp.py", Look::Own),
        ];
        std::fs::write(dir.path().join("alice.py"), course_spy(&probes)).unwrap();
        std::fs::write(dir.path().join("spyhelp.py"), course_random_bot()).unwrap();
        give_to_arbiter(dir.path());
        let mut args = vec![
            "play",
            "--game",
            "asalto",
            "--rebel",
            "alice.py",
            "--officer",
            "bob.py",
            "--record",
            "game.json",
        ];
        args.extend_from_slice(level);
        let mut cmd = arbiter_cmd(&args, &[]);
        cmd.current_dir(dir.path());
        let (_, stdout, stderr) = run(&mut cmd);
        let written = everything_written(&record, &format!("{stdout}{stderr}"));
        assert!(record.is_file(), "{level:?}: {stdout}{stderr}");
        assert_hidden(&probes, &written, level);
    }
}

/// Whether every game of the journal in `results` was played to its end by both bots:
/// none ended by a bot's failure (a spy that could not import its own helper).
fn assert_played(results: &Path, level: &[&str]) {
    for (_, record) in journal_records(results) {
        assert!(
            record.detail.is_none(),
            "{level:?}: {}: {:?}",
            record.reason,
            record.detail
        );
    }
}

/// A flat class folder over the copy's budget, holding the spy's helper and data, its
/// victim and the results; `sparse` files of `mib` MiB each (costing no disk).
fn big_class(dir: &Path, sparse: &[(&str, u64)]) -> (PathBuf, PathBuf) {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    for (name, mib) in sparse {
        let file = std::fs::File::create(class.join(name)).unwrap();
        file.set_len(mib << 20).unwrap();
    }
    std::fs::write(
        class.join("Team02.py"),
        course_bot_with(&format!("# {TOKEN}")),
    )
    .unwrap();
    std::fs::write(class.join("spyhelp.py"), course_random_bot()).unwrap();
    (class.join("Team01.py"), class.join("Team02.py"))
}

#[test]
fn a_folder_holding_a_file_over_the_copy_budget_is_copied_with_that_file_linked() {
    for level in LEVELS {
        let dir = test_dir();
        // One file over the copy's 256 MiB: a model file beside a bot.
        let (spy, victim) = big_class(dir.path(), &[("weights.bin", 300)]);
        let class = spy.parent().unwrap().to_path_buf();
        let results = class.join("results");
        let probes = [
            probe("Team02 where it is", &victim, Look::Victim),
            probe("Team02 beside it", "Team02.py", Look::Victim),
            probe("results folder", &results, Look::Results),
            probe("results beside it", "results", Look::Results),
            probe("live journal", results.join("games.jsonl"), Look::Results),
            probe("own helper", "spyhelp.py", Look::Own),
            probe("own data file", "weights.bin", Look::Own),
        ];
        std::fs::write(&spy, course_spy(&probes)).unwrap();
        give_to_arbiter(dir.path());
        let output = league_as_user(&results, level, &[&spy, &victim]);
        assert_hidden(&probes, &everything_written(&results, &output), level);
        assert_played(&results, level);
    }
}

#[test]
fn a_folder_too_big_to_copy_is_read_in_place_without_the_other_teams_files_or_the_results() {
    for level in LEVELS {
        let dir = test_dir();
        // Over the copy's 256 MiB in files too small to be linked: a build folder.
        let parts: Vec<(String, u64)> = (0..18).map(|i| (format!("part{i:02}.o"), 15)).collect();
        let parts: Vec<(&str, u64)> = parts.iter().map(|(n, m)| (n.as_str(), *m)).collect();
        let (spy, victim) = big_class(dir.path(), &parts);
        let results = dir.path().join("results");
        let probes = [
            probe("Team02 where it is", &victim, Look::Victim),
            probe("Team02 beside it", "Team02.py", Look::Victim),
            probe("results folder", &results, Look::Results),
            probe("live journal", results.join("games.jsonl"), Look::Results),
            probe("own helper", "spyhelp.py", Look::Own),
            probe("own data file", "part00.o", Look::Own),
        ];
        std::fs::write(&spy, course_spy(&probes)).unwrap();
        give_to_arbiter(dir.path());
        let output = league_as_user(&results, level, &[&spy, &victim]);
        assert_hidden(&probes, &everything_written(&results, &output), level);
        assert_played(&results, level);
    }
}

#[test]
fn a_protocol_bot_in_a_bin_folder_reads_neither_the_other_bot_its_sources_nor_the_journal() {
    let zoo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zoo/zoo.py");
    for level in LEVELS {
        let dir = test_dir();
        let project = dir.path().join("project");
        let (bin, src) = (project.join("bin"), project.join("src"));
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&src).unwrap();
        let results = project.join("results");
        std::fs::copy(&zoo, bin.join("zoo.py")).unwrap();
        std::fs::write(src.join("victim.rs"), format!("// {TOKEN}\n")).unwrap();
        write_executable(
            &bin.join("victim"),
            &format!("#!/usr/bin/python3\n# {TOKEN}\nimport zoo\nzoo.play()\n"),
        );
        let probes = [
            probe("other bot beside it", bin.join("victim"), Look::Victim),
            probe("other bot's sources", src.join("victim.rs"), Look::Victim),
            probe("sources folder", &src, Look::Victim),
            probe("results folder", &results, Look::Results),
            probe("live journal", results.join("games.jsonl"), Look::Results),
            probe("own helper", bin.join("zoo.py"), Look::Own),
        ];
        write_executable(
            &bin.join("spy"),
            &format!(
                "#!/usr/bin/python3\n{}\nimport zoo\nzoo.play()\n",
                python_probes(&probes)
            ),
        );
        give_to_arbiter(dir.path());
        let output = league_as_user(&results, level, &[&bin.join("spy"), &bin.join("victim")]);
        assert_hidden(&probes, &everything_written(&results, &output), level);
    }
}

/// Java that runs every probe from a player's constructor and reports as
/// [`python_probes`] does (the driver sends the player's stdout to its stderr log).
fn java_spy(class: &str, probes: &[Probe]) -> String {
    let calls: String = probes
        .iter()
        .map(|p| {
            format!(
                "        probe({:?}, {:?}, {});\n",
                p.label,
                p.path.to_string_lossy(),
                matches!(p.look, Look::Victim)
            )
        })
        .collect();
    format!(
        r#"import java.nio.file.*;

public class {class} extends SequencePlayer {{
    static final String TOKEN = "VICTIM-" + "TOKEN-52c9e1";

    static String look(String path) throws Exception {{
        Path p = Paths.get(path);
        if (Files.isDirectory(p)) {{
            StringBuilder text = new StringBuilder();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(p)) {{
                for (Path e : entries) {{
                    text.append(e.getFileName()).append(' ');
                    try {{ text.append(new String(Files.readAllBytes(e))); }} catch (Exception x) {{ }}
                }}
            }}
            return text.toString();
        }}
        return new String(Files.readAllBytes(p));
    }}

    static void probe(String label, String path, boolean victim) {{
        String text = "";
        boolean reached;
        try {{
            text = look(path);
            reached = victim ? text.contains(TOKEN) : !text.isEmpty();
        }} catch (Throwable e) {{
            reached = false;
        }}
        if (reached) {{
            String shown = text.substring(0, Math.min(300, text.length())).replace('\n', ' ');
            System.out.println("SPY " + label + ": reached " + shown);
        }} else {{
            System.out.println("SPY " + label + ": blocked");
        }}
    }}

    public {class}() {{
{calls}        System.out.flush();
    }}
}}
"#
    )
}

#[test]
fn java_players_extending_the_courses_players_are_hidden_from_the_player_beside_them() {
    for level in LEVELS {
        let dir = test_dir();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        let results = dir.path().join("results");
        // Players that never name GomokuPlayer: they extend the course's own players.
        std::fs::write(
            class.join("PlayerRandom.java"),
            format!("// {TOKEN}\npublic class PlayerRandom extends RandomPlayer {{}}\n"),
        )
        .unwrap();
        std::fs::write(
            class.join("PlayerSequence.java"),
            format!("// {TOKEN}\npublic class PlayerSequence extends SequencePlayer {{}}\n"),
        )
        .unwrap();
        std::fs::write(class.join("SpyHelp.java"), "class SpyHelp {}\n").unwrap();
        let probes = [
            probe(
                "RandomPlayer's beside it",
                "PlayerRandom.java",
                Look::Victim,
            ),
            probe(
                "RandomPlayer's where it is",
                class.join("PlayerRandom.java"),
                Look::Victim,
            ),
            probe(
                "SequencePlayer's beside it",
                "PlayerSequence.java",
                Look::Victim,
            ),
            probe("results folder", &results, Look::Results),
            probe("live journal", results.join("games.jsonl"), Look::Results),
            probe("own helper", "SpyHelp.java", Look::Own),
            probe("own file", "PlayerSpy.java", Look::Own),
        ];
        std::fs::write(class.join("PlayerSpy.java"), java_spy("PlayerSpy", &probes)).unwrap();
        give_to_arbiter(dir.path());
        let out = results.to_string_lossy().into_owned();
        let players: Vec<String> = ["PlayerSpy.java", "PlayerRandom.java", "PlayerSequence.java"]
            .iter()
            .map(|p| class.join(p).to_string_lossy().into_owned())
            .collect();
        let mut args = vec!["league", "--game", "gomoku", "--pairs", "1", "-j", "1"];
        args.extend(["--out", &out]);
        args.extend_from_slice(level);
        args.extend(players.iter().map(String::as_str));
        let mut cmd = arbiter_cmd(&args, &[]);
        cmd.env_remove("ARBITER_JAVA_CACHE");
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "{level:?}: {stdout}{stderr}");
        let written = everything_written(&results, &format!("{stdout}{stderr}"));
        assert_hidden(&probes, &written, level);
    }
}

/// A stand-in for `dotnet`: `dotnet build PROJECT ... -o OUT` puts the project's `bot.py`
/// in OUT as the project's DLL, and `dotnet DLL ARGS` runs it with Python.
const DOTNET: &str = r#"#!/bin/sh
if [ "$1" = build ]; then
    project="$2"
    while [ $# -gt 0 ]; do
        if [ "$1" = -o ]; then out="$2"; fi
        shift
    done
    cp "$(dirname "$project")/bot.py" "$out/$(basename "$project" .csproj).dll"
    exit 0
fi
exec /usr/bin/python3 "$@"
"#;

#[test]
fn advance_console_programs_and_a_csharp_project_side_by_side_do_not_read_each_other() {
    for level in LEVELS {
        let dir = test_dir();
        let class = dir.path().join("class");
        let project = class.join("Bob");
        std::fs::create_dir_all(&project).unwrap();
        let tools = dir.path().join("tools");
        std::fs::create_dir(&tools).unwrap();
        write_executable(&tools.join("dotnet"), DOTNET);
        let results = dir.path().join("results");
        // Each bot gives up at its first move: a game is one run of the bot to move.
        let victim = format!("#!/usr/bin/python3\n# {TOKEN}\nimport sys\nsys.exit(3)\n");
        write_executable(&class.join("carol"), &victim);
        std::fs::write(
            project.join("Bob.csproj"),
            format!("<Project><!-- {TOKEN} --></Project>\n"),
        )
        .unwrap();
        std::fs::write(project.join("Program.cs"), format!("// {TOKEN}\n")).unwrap();
        std::fs::write(project.join("bot.py"), &victim).unwrap();
        // A class folder (it holds Bob's project): the spy's own notes are named after it.
        std::fs::write(class.join("alice-notes.txt"), "the spy's own notes\n").unwrap();
        let probes = [
            probe("console program beside it", "carol", Look::Victim),
            probe(
                "console program where it is",
                class.join("carol"),
                Look::Victim,
            ),
            probe("C# project beside it", "Bob", Look::Victim),
            probe("C# project where it is", &project, Look::Victim),
            probe("C# source", project.join("Program.cs"), Look::Victim),
            probe("results folder", &results, Look::Results),
            probe("live journal", results.join("games.jsonl"), Look::Results),
            probe("own notes", "alice-notes.txt", Look::Own),
        ];
        let spy = format!(
            "#!/usr/bin/python3\n{}\nsys.exit(3)\n",
            python_probes(&probes)
        );
        write_executable(&class.join("alice"), &spy);
        give_to_arbiter(dir.path());
        let path = format!(
            "{}:{}",
            tools.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let (out, class_arg) = (
            results.to_string_lossy().into_owned(),
            class.to_string_lossy().into_owned(),
        );
        let mut args = vec!["league", "--game", "advance", "--pairs", "1", "-j", "1"];
        args.extend(["--out", &out]);
        args.extend_from_slice(level);
        args.push(&class_arg);
        let (code, stdout, stderr) = run(&mut arbiter_cmd(&args, &[("PATH", &path)]));
        assert_eq!(code, 0, "{level:?}: {stdout}{stderr}");
        let written = everything_written(&results, &format!("{stdout}{stderr}"));
        assert_eq!(
            journal_records(&results).len(),
            6,
            "{level:?}: three bots played: {written}"
        );
        assert_hidden(&probes, &written, level);
    }
}

#[test]
fn two_hinger_agents_sharing_a_folder_do_not_read_each_other() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/examples/hinger");
    for level in LEVELS {
        let dir = test_dir();
        let record = dir.path().join("game.json");
        let agent = read(&example.join("a3_agent.py"));
        std::fs::copy(example.join("a1_state.py"), dir.path().join("a1_state.py")).unwrap();
        std::fs::write(
            dir.path().join("a3_agent_v2.py"),
            format!("# {TOKEN}\n{agent}"),
        )
        .unwrap();
        let probes = [
            probe("agent beside it", "a3_agent_v2.py", Look::Victim),
            probe(
                "agent where it is",
                dir.path().join("a3_agent_v2.py"),
                Look::Victim,
            ),
            probe("record", &record, Look::Results),
            probe("own helper", "a1_state.py", Look::Own),
        ];
        std::fs::write(
            dir.path().join("a3_agent.py"),
            format!("{}\n{agent}", python_probes(&probes)),
        )
        .unwrap();
        give_to_arbiter(dir.path());
        let (first, second, record_arg) = (
            dir.path()
                .join("a3_agent.py")
                .to_string_lossy()
                .into_owned(),
            dir.path()
                .join("a3_agent_v2.py")
                .to_string_lossy()
                .into_owned(),
            record.to_string_lossy().into_owned(),
        );
        let mut args = vec!["play", "--game", "hinger", "--first", &first];
        args.extend(["--second", &second, "--record", &record_arg]);
        args.extend_from_slice(level);
        let (_, stdout, stderr) = run(&mut arbiter_cmd(&args, &[]));
        assert!(record.is_file(), "{level:?}: {stdout}{stderr}");
        let written = everything_written(&record, &format!("{stdout}{stderr}"));
        assert_hidden(&probes, &written, level);
    }
}

#[test]
fn results_written_into_the_bots_own_folder_keep_the_live_journal_out_of_reach() {
    for level in LEVELS {
        let dir = test_dir();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        std::fs::write(
            class.join("Team02.py"),
            course_bot_with(&format!("# {TOKEN}")),
        )
        .unwrap();
        // The league's second game finds the first in the journal beside the bots.
        let probes = [
            probe("Team02 beside it", "Team02.py", Look::Victim),
            probe("live journal beside it", "games.jsonl", Look::Results),
            probe("journal lock beside it", "games.lock", Look::Results),
            probe("own helper", "spyhelp.py", Look::Own),
        ];
        std::fs::write(class.join("Team01.py"), course_spy(&probes)).unwrap();
        std::fs::write(class.join("spyhelp.py"), course_random_bot()).unwrap();
        give_to_arbiter(dir.path());
        let (spy, victim) = (class.join("Team01.py"), class.join("Team02.py"));
        let output = league_as_user(&class, level, &[&spy, &victim]);
        // What the run wrote, beside the bots' own files (the victim's among them).
        let tables = ["games.csv", "standings.csv"]
            .map(|t| read(&class.join(t)))
            .concat();
        let ran = format!("{output}{tables}{}", journal_text(&class));
        let written = everything_written(&class.join("feedback"), &ran);
        assert_hidden(&probes, &written, level);
    }
}
