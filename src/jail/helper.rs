//! The program that builds jails, from its start to the jail's first step: the
//! description read (by `arbiter-jail`, checked to be of its own build), then
//! `super::inside::enter`; a step that fails is said on stderr and on the jail's report.
//! Both programs a build makes run it: `arbiter-jail confine JAIL` and, where that one is
//! missing or of another build, `arbiter confine JAIL`.

use super::inside::{Jail, SETUP_FAILED, enter};
use super::report::OTHER_BUILD;
use std::path::Path;

/// This build's identity (`src/build.rs`), in every jail's description: `arbiter-jail`
/// refuses a description from another build, saying [`OTHER_BUILD`]. (`arbiter confine`,
/// what arbiter then falls back on, reads any description it can, as it always did.)
pub(crate) const BUILD: &str = concat!("arbiter build ", env!("ARBITER_BUILD"));

/// The JAIL of the command line `confine JAIL`, the one each program that builds jails is
/// started with; `None` for any other.
pub fn asked_to_confine() -> Option<String> {
    let mut argv = std::env::args_os().skip(1);
    match (argv.next(), argv.next(), argv.next()) {
        (Some(word), Some(jail), None) if word == "confine" => jail.into_string().ok(),
        _ => None,
    }
}

/// `arbiter-jail confine JAIL`, the same as `arbiter confine JAIL`; else a usage error.
pub fn main() -> i32 {
    match asked_to_confine() {
        Some(jail) => run(&jail, true),
        None => {
            eprintln!(
                "usage: arbiter-jail confine JAIL (arbiter starts it for each bot it confines)"
            );
            2
        }
    }
}

/// Why `plan` was not described by an arbiter of this build; `None` when it was.
fn of_this_build(plan: &Jail) -> Option<String> {
    (plan.build != BUILD).then(|| {
        format!(
            "{OTHER_BUILD} (`{BUILD}`, the description `{}`)",
            plan.build
        )
    })
}

/// `arbiter confine JAIL` (`@FILE`: the description is in FILE), of this build only when
/// `same_build`: never returns when the jail is built; else says which step failed and
/// exits with the status the referee reads as a failed start.
pub fn run(jail: &str, same_build: bool) -> i32 {
    // SAFETY: a program that builds jails starts no thread.
    unsafe { super::report::take() };
    let text = match jail.strip_prefix('@') {
        Some(file) => match crate::untrusted::file::read_regular_file(Path::new(file), 1 << 20) {
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) => Err(format!("cannot read the jail's description {file}: {e}")),
        },
        None => Ok(jail.to_string()),
    };
    let failed = match text.map(|text| serde_json::from_str::<Jail>(&text)) {
        Ok(Ok(plan)) => match of_this_build(&plan).filter(|_| same_build) {
            Some(why) => why,
            None => enter(&plan).0,
        },
        Ok(Err(e)) => format!("the jail's description: {e}"),
        Err(why) => why,
    };
    eprintln!("arbiter confine: {failed}");
    super::report::say(&failed);
    SETUP_FAILED
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jail::Level;

    fn described_by(build: &str) -> Jail {
        Jail {
            level: Level::Namespaces,
            private: "/var/tmp/p/home".into(),
            cwd: "/var/tmp/p/home".into(),
            root: "/var/tmp/p/.root".into(),
            read_only: Vec::new(),
            hidden: Vec::new(),
            memory_mb: None,
            cpu_s: None,
            file_mb: None,
            tasks: None,
            disk_mb: None,
            run_as: None,
            program: "/usr/bin/true".into(),
            args: Vec::new(),
            cgroup: None,
            cpus: Vec::new(),
            build: build.into(),
        }
    }

    #[test]
    fn a_description_of_another_build_or_of_none_is_refused_saying_so() {
        assert_eq!(of_this_build(&described_by(BUILD)), None);
        for other in ["arbiter build 0123456789abcdef", ""] {
            let why = of_this_build(&described_by(other)).unwrap();
            assert!(why.starts_with(OTHER_BUILD), "{why}");
            assert!(why.contains(BUILD), "{why}");
        }
        // A description written before builds were named has none: refused too.
        let old = serde_json::to_value(described_by("")).unwrap();
        let mut old = old.as_object().unwrap().clone();
        old.remove("build");
        let plan: Jail = serde_json::from_value(serde_json::Value::Object(old)).unwrap();
        assert!(of_this_build(&plan).is_some());
    }
}
