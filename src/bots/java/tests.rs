//! Unit tests of Java player support: source reading, compiling, the JVM's flags.

use super::compile::*;
use super::discovery::*;
use super::driver::*;
use super::environment::*;
use crate::bots::spec::Limits;
use crate::bots::{Failure, FailureKind};
use std::path::{Path, PathBuf};

fn decl(name: &str, superclass: Option<&str>, is_abstract: bool) -> ClassDecl {
    ClassDecl {
        name: name.into(),
        superclass: superclass.map(Into::into),
        is_abstract,
    }
}

#[test]
fn packages_are_read_past_comments_and_strings() {
    assert_eq!(
        package_of("// header\n/* package no; */\npackage  league.bots ;\nclass A {}"),
        Some("league.bots".into())
    );
    assert_eq!(package_of("packages x;"), None);
    assert_eq!(package_of("class A { String package; }"), None);
    assert_eq!(package_of("import a.b; class A { int package = 1; }"), None);
}

#[test]
fn top_level_classes_are_found_with_their_superclass() {
    let source = r#"
        import java.awt.Color;
        // class Commented extends GomokuPlayer {}
        public abstract class Base<T extends Comparable<T>> extends GomokuPlayer {
            class Inner extends GomokuPlayer {}
            String s = "class InString extends GomokuPlayer { }";
            char c = '{';
        }
        final class P123 extends Base<Integer> implements Runnable { public void run() {} }
        interface Helper { }
        class Plain { }
        enum E { A, B }
    "#;
    assert_eq!(
        top_level_classes(source),
        [
            decl("Base", Some("GomokuPlayer"), true),
            decl("P123", Some("Base"), false),
            decl("Plain", None, false),
        ]
    );
}

#[test]
fn the_player_class_is_found_by_what_it_is_not_by_its_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    write("Base.java", "abstract class Base extends SequencePlayer {}");
    let through_folder = write(
        "Player1.java",
        "class Helper {}\npublic class Renamed extends Base {}",
    );
    assert_eq!(player_class(&through_folder).unwrap(), "Renamed");
    assert_eq!(default_name(&through_folder), "Renamed");
    let through_env = write("Lazy.java", "class LazySeq extends SequencePlayer {}");
    assert_eq!(player_class(&through_env).unwrap(), "LazySeq");
    let packaged = write(
        "P2.java",
        "package a.b;\nimport java.awt.Color;\npublic class P2 extends a.b.GomokuPlayer {}",
    );
    assert_eq!(player_class(&packaged).unwrap(), "a.b.P2");
    let none = write("Util.java", "class Util extends Thread {}\nclass Other {}");
    let err = player_class(&none).unwrap_err();
    assert!(
        err.contains("Util.java") && err.contains("declares no player"),
        "{err}"
    );
    assert!(err.contains("Util, Other"), "{err}");
    let two = write(
        "Two.java",
        "class A extends GomokuPlayer {}\nclass B extends RandomPlayer {}",
    );
    let err = player_class(&two).unwrap_err();
    assert!(
        err.contains("Two.java") && err.contains("several players (A, B)"),
        "{err}"
    );
    // Through a class declared in a file of another name, which javac is then given.
    write(
        "Helpers.java",
        "abstract class Base2 extends GomokuPlayer {}\nclass Node { Leaf leaf; }\nclass Leaf {}",
    );
    write("Unused.java", "class Unused {}");
    let stray = write(
        "P3.java",
        "class P3 extends Base2 { Object n = Node.class; }",
    );
    assert_eq!(player_class(&stray).unwrap(), "P3");
    let folder = Folder::of(&stray, None);
    assert_eq!(
        folder.strays_used("class P3 extends Base2 { Object n = Node.class; }"),
        [dir.path().join("Helpers.java")]
    );
    // A class the player declares itself is its own, not a stray's.
    assert!(
        folder
            .strays_used("class P4 extends GomokuPlayer {} class Node {}")
            .is_empty()
    );
    // A loop of superclasses ends.
    let cycle = write("Cycle.java", "class X extends Y {}\nclass Y extends X {}");
    assert!(player_class(&cycle).is_err());
    // The player's own SequencePlayer wins over the environment's.
    write("SequencePlayer.java", "public class SequencePlayer {}");
    assert!(player_class(&through_env).is_err());
}

#[test]
fn a_players_folder_links_are_not_read_for_its_class_nor_taken_for_its_sources() {
    let dir = tempfile::tempdir().unwrap();
    let (team, other) = (dir.path().join("team"), dir.path().join("other"));
    std::fs::create_dir_all(&team).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    // The other team's base class is a player: read through the link, it would make
    // `Mine` one too.
    std::fs::write(
        other.join("Base.java"),
        "abstract class Base extends GomokuPlayer { /* theirs */ }",
    )
    .unwrap();
    std::os::unix::fs::symlink(other.join("Base.java"), team.join("Base.java")).unwrap();
    std::os::unix::fs::symlink(&other, team.join("lib")).unwrap();
    let mine = team.join("Mine.java");
    std::fs::write(&mine, "public class Mine extends Base {}").unwrap();
    let err = player_class(&mine).unwrap_err();
    assert!(err.contains("declares no player"), "{err}");
    let (sources, links) = sources_under(&team);
    assert_eq!(
        sources,
        [(mine.clone(), b"public class Mine extends Base {}".to_vec())]
    );
    assert_eq!(links, [team.join("Base.java"), team.join("lib")]);
}

#[test]
fn packaged_players_resolve_from_the_folder_above_their_package() {
    let p = Path::new("/x/league/a/b/P.java");
    assert_eq!(source_root(p, Some("a.b")), Path::new("/x/league"));
    assert_eq!(source_root(p, None), Path::new("/x/league/a/b"));
    // Kept flat, not in a/b/: the file's own folder.
    assert_eq!(
        source_root(Path::new("/x/flat/P.java"), Some("a.b")),
        Path::new("/x/flat")
    );
}

#[test]
fn the_run_command_is_headless_and_carries_its_classes() {
    let compiled = Compiled {
        dir: PathBuf::from("/cache/P-1"),
        class: "P".into(),
    };
    let c = run_command(&compiled, "java", &Limits::default(), "");
    assert_eq!(c.program, "java");
    let tail: Vec<&str> = c.args.iter().rev().take(4).map(String::as_str).collect();
    assert_eq!(tail, ["P", "ArbiterDriver", "/cache/P-1", "-cp"]);
    assert!(c.args.contains(&"-Djava.awt.headless=true".to_string()));
    assert!(c.args.contains(&"-Darbiter.stack.mb=256".to_string()));
    assert!(!c.args.iter().any(|a| a.starts_with("-Xmx")));
    assert_eq!(c.carried, [PathBuf::from("/cache/P-1")]);
    // Options of one's own come after arbiter's, so that they win.
    let limits = Limits {
        memory_mb: Some(1024),
        ..Limits::default()
    };
    let c = run_command(&compiled, "java", &limits, " -Xmx700m  -Dx=1 ");
    let at = |flag: &str| c.args.iter().position(|a| a == flag).unwrap();
    assert!(at("-Xmx256m") < at("-Xmx700m"));
    assert_eq!(at("-Dx=1") + 1, at("-cp"));
    assert_eq!(c.env.get("MALLOC_ARENA_MAX").map(String::as_str), Some("1"));
    assert!(DRIVER.contains("class ArbiterDriver"));
    assert!(GOMOKU_PLAYER.contains("abstract Move chooseMove(Color[][] board, Color myColour)"));
}

#[test]
fn the_memory_limit_is_split_into_stack_fixed_reservations_and_heap() {
    let (flags, stack) = memory_flags(Some(1024));
    assert_eq!(stack, 64);
    assert_eq!(flags[0], "-Xmx256m");
    let (flags, _) = memory_flags(Some(600));
    // A quarter of 600 MiB, under the 163 MiB its reservations and stack leave.
    assert_eq!(flags[0], "-Xmx150m");
    let (flags, _) = memory_flags(Some(500));
    assert_eq!(flags[0], format!("-Xmx{}m", 500 - JVM_OVERHEAD_MB - 31));
    assert_eq!(min_memory_mb(), 443);
    let (flags, stack) = memory_flags(Some(min_memory_mb()));
    assert_eq!((flags[0].as_str(), stack), ("-Xmx16m", 27));
    let (flags, stack) = memory_flags(Some(4096));
    assert_eq!((flags[0].as_str(), stack), ("-Xmx1024m", 256));
    // Too little for a JVM: the smallest heap, and the start fails with a clear detail.
    let (flags, stack) = memory_flags(Some(128));
    assert_eq!((flags[0].as_str(), stack), ("-Xmx16m", 16));
    let limits = Limits {
        memory_mb: Some(128),
        ..Limits::default()
    };
    let failure = Failure::new(
        FailureKind::Crash,
        "before `ready`: the bot exited (exit status 1); stderr tail:\n\
         Error occurred during initialization of VM",
    );
    let failure = jvm_start_failure(failure, &limits);
    assert_eq!(failure.kind, FailureKind::Spawn);
    assert!(
        failure
            .detail
            .starts_with("the JVM did not start under the memory limit of 128 MiB"),
        "{}",
        failure.detail
    );
    // A player's constructor that fails is the player's exception, limit or not.
    let thrown = Failure::new(FailureKind::Exception, "cannot build P: OutOfMemoryError");
    assert_eq!(jvm_start_failure(thrown.clone(), &limits), thrown);
    // Without a memory limit, a crash stays a crash.
    let crash = Failure::new(
        FailureKind::Crash,
        "Error occurred during initialization of VM",
    );
    assert_eq!(jvm_start_failure(crash.clone(), &Limits::default()), crash);
}

#[test]
fn a_write_past_the_file_limit_is_a_file_size_loss() {
    let limits = Limits {
        file_mb: Some(1),
        ..Limits::default()
    };
    let thrown = Failure::new(
        FailureKind::Exception,
        "java.io.IOException: File too large\n\tat java.io.FileOutputStream.writeBytes",
    );
    let failure = file_size_failure(thrown.clone(), &limits);
    assert_eq!(failure.kind, FailureKind::FileSize);
    assert!(
        failure
            .detail
            .starts_with("file size limit of 1 MiB exceeded")
    );
    assert_eq!(
        file_size_failure(thrown.clone(), &Limits::default()),
        thrown
    );
}
