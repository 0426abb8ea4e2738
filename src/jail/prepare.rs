//! The referee's side of a jail: the bot's private folder and what goes in it, the runtime
//! it needs, its environment, and the command that starts `arbiter confine`.

use super::CommandSpec;
use super::Level;
use super::inside::{Jail, SYSTEM};
use crate::untrusted::file::CopyError;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// The most a bot's own files may hold to be copied into its private folder.
const MAX_COPY_BYTES: u64 = 256 << 20;
/// A file at least this big is not copied when its folder is over the copy's budget: the
/// copy holds a link to it, which the bot reads where it is (a model file beside a bot).
const LINKED_BYTES: u64 = 16 << 20;
/// The most files and folders a bot's folder may hold to be copied: one with more (a build
/// folder, a virtual environment) is read where it is. The walk that measures a folder stops
/// there, so even a folder of a hundred thousand files costs a bounded walk at each start,
/// and a console bot starts at every move.
const MAX_COPY_ENTRIES: usize = 10_000;
/// The `PATH` of a confined bot: system folders, after its runtime's.
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A jail ready to start, and the folder it lives in (removed when dropped).
pub struct Prepared {
    /// What the jail is built from, handed to `arbiter confine` as JSON.
    pub jail: Jail,
    /// The environment the bot starts with, whole.
    pub env: BTreeMap<String, String>,
    _folder: super::leftovers::PrivateFolder,
    /// As root, the claim on the bot's own uid, released once the bot is gone.
    _uid: Option<std::fs::File>,
}

impl Prepared {
    /// The bot's private folder (its working folder, HOME and TMPDIR).
    pub fn private(&self) -> &Path {
        &self.jail.private
    }

    /// The jail's report, in the folder the bot does not reach.
    pub fn report(&self) -> io::Result<super::JailReport> {
        super::JailReport::new(self._folder.path())
    }

    /// `arbiter confine JAIL` with the bot's environment, in its private folder.
    ///
    /// The jail's description goes in a file of the jail's folder, which the bot cannot
    /// reach, rather than on the command line, which its `/proc` shows it.
    pub fn command(&self) -> io::Result<Command> {
        let json = serde_json::to_string(&self.jail).expect("a jail serializes");
        let file = self._folder.path().join("jail.json");
        std::fs::write(&file, json)?;
        let mut cmd = super::helper_command(&format!("@{}", file.display()))
            .unwrap_or_else(|| Command::new("arbiter"));
        cmd.env_clear().envs(&self.env).current_dir(&self.jail.cwd);
        Ok(cmd)
    }
}

/// Prepares the jail of `command` at `level`: its private folder holds a copy of its
/// working folder (without the files of the run's other entrants, nor its results:
/// [`super::entrants`]) and of the folders it carries, and the arguments naming them point
/// at the copies.
pub(crate) fn prepare(command: &CommandSpec, level: Level) -> io::Result<Prepared> {
    // As root, each bot runs as a uid of its own (claimed across arbiter processes, as the
    // sandbox's are): the kernel's per-uid counts (`RLIMIT_NPROC`) are then per bot, so
    // that a bot at its process cap cannot keep another bot, or another run, from starting
    // a thread; and no bot can signal or read another's processes or folder.
    let claim = match rustix::process::geteuid().is_root() {
        true => Some(super::sandbox::claim_uid()?),
        false => None,
    };
    let run_as = claim.as_ref().map(|(uid, _)| *uid);
    let folder = super::leftovers::private_folder("bot", &base())?;
    let origin = match &command.cwd {
        Some(dir) => std::path::absolute(dir)?,
        None => std::env::current_dir()?,
    };
    // The copy of the bot's folder keeps its name: course bots may name themselves after it.
    let private = match (&command.cwd, origin.file_name()) {
        (Some(_), Some(name)) => folder.path().join(name),
        _ => folder.path().join("home"),
    };
    let root = folder.path().join(".root");
    std::fs::create_dir(&root)?;
    // What the bot must not read, computed from the run's entrants: another entrant's
    // files (in its folder, they are left out of the copy) and the results.
    let others = super::entrants::hidden_from(command, &origin);
    let skip = |path: &Path| others.iter().any(|o| o == path);
    let mut program = command.program.clone();
    let mut args = command.args.clone();
    let mut read_only = Vec::new();
    // The bot works in a copy of its folder, writable, without other teams' code. In a
    // folder over the copy's budget its big files are linked, not copied; a folder still
    // too big to copy (a build folder) is read where it is, and the bot works in it.
    let mut cwd = private.clone();
    let mut linked = Vec::new();
    let copied = match &command.cwd {
        Some(_) => match copy_plan(&origin, &skip) {
            CopyPlan::InPlace => Err(CopyError::OverBudget(MAX_COPY_BYTES)),
            plan => {
                if let CopyPlan::Linking(big) = plan {
                    linked = big;
                }
                let skip = |path: &Path| skip(path) || linked.iter().any(|l| l == path);
                crate::untrusted::file::copy_private_tree(&origin, &private, MAX_COPY_BYTES, &skip)
            }
        },
        None => std::fs::create_dir(&private).map_err(CopyError::Io),
    };
    match copied {
        Ok(()) if command.cwd.is_some() => {
            for big in &linked {
                if let Ok(rest) = big.strip_prefix(&origin) {
                    std::os::unix::fs::symlink(big, private.join(rest))?;
                    read_only.push(big.clone());
                }
            }
            let moved = |text: &mut String| super::repoint(text, &origin, &private);
            moved(&mut program);
            args.iter_mut().for_each(moved);
            // A program named relative to its folder is run from the copy.
            if program.contains('/') && Path::new(&program).is_relative() {
                program = private.join(&program).to_string_lossy().into_owned();
            }
        }
        Ok(()) => {}
        Err(CopyError::OverBudget(_)) => {
            let _ = std::fs::remove_dir_all(&private);
            std::fs::create_dir(&private)?;
            read_only.push(origin.clone());
            cwd = origin.clone();
        }
        Err(e) => {
            return Err(io::Error::other(format!(
                "cannot copy `{}`: {e}",
                origin.display()
            )));
        }
    }
    for from in &command.carried {
        let name = from.file_name().unwrap_or_default().to_string_lossy();
        let copy = private.join(format!(".arbiter-{name}"));
        crate::untrusted::file::copy_private_tree(from, &copy, MAX_COPY_BYTES, &|_| false)
            .map_err(|e| io::Error::other(format!("cannot copy `{}`: {e}", from.display())))?;
        for arg in args.iter_mut() {
            super::repoint(arg, from, &copy);
        }
    }
    let runtime = resolve_program(&mut program, &origin, &mut read_only)?;
    // A JVM's temporary files go where the bot may write (at level 2, /tmp is not).
    if Path::new(&program).file_name().is_some_and(|n| n == "java") {
        args.insert(0, format!("-Djava.io.tmpdir={}", private.display()));
    }
    // Files the command names outside its folder (a script, a data file) are readable,
    // with the folder they are in (a script's helper modules), but not what another
    // entrant has in that folder.
    for arg in args.iter_mut() {
        let path = Path::new(arg.as_str());
        let outside = if path.is_absolute() {
            path.to_path_buf()
        } else if command.cwd.is_none() && (arg.contains('/') || origin.join(path).is_file()) {
            // `python3 bot.py` names its script as `./bot.py` does.
            origin.join(path)
        } else {
            continue;
        };
        if outside.exists()
            && !outside.starts_with(&private)
            && !outside.starts_with(&cwd)
            && !is_system(&outside)
        {
            let outside = std::path::absolute(&outside)?;
            *arg = outside.to_string_lossy().into_owned();
            let folder = match outside.parent() {
                Some(parent) if outside.is_file() => parent.to_path_buf(),
                _ => outside.clone(),
            };
            if !read_only.contains(&folder) {
                read_only.push(folder);
            }
        }
    }
    // Whatever the bot reads where it is (a folder too big to copy, the folder of a file
    // it names, its program's, the system's), another entrant's files and the results in
    // it are hidden; a folder that is itself another entrant's is not read at all.
    read_only.retain(|r| !others.iter().any(|o| r.starts_with(o)) && !r.starts_with(&private));
    let mut hidden: Vec<PathBuf> = others
        .iter()
        .filter(|o| is_system(o) || read_only.iter().any(|r| o.starts_with(r)))
        .cloned()
        .collect();
    hidden.dedup();
    let mut env = BTreeMap::new();
    let path = match &runtime {
        Some(bin) => format!("{}:{SYSTEM_PATH}", bin.display()),
        None => SYSTEM_PATH.to_string(),
    };
    env.insert("PATH".to_string(), path);
    for var in ["HOME", "TMPDIR"] {
        env.insert(var.to_string(), private.to_string_lossy().into_owned());
    }
    env.insert("LANG".to_string(), "C.UTF-8".to_string());
    env.extend(command.env.clone());
    if let Some(id) = run_as {
        use std::os::unix::fs::PermissionsExt;
        // The bot's uid must reach its folder through the jail's own: nothing else there.
        std::fs::set_permissions(folder.path(), std::fs::Permissions::from_mode(0o711))?;
        chown_tree(&private, id)?;
    }
    let limits = command.confine.effective_limits();
    Ok(Prepared {
        jail: Jail {
            level,
            private,
            cwd,
            root,
            read_only,
            hidden,
            memory_mb: limits.memory_mb,
            cpu_s: limits.cpu_s,
            file_mb: limits.file_mb,
            tasks: limits.procs,
            disk_mb: Some(limits.file_mb.map_or(super::caps::DEFAULT_DISK_MB, |mb| {
                mb.max(super::caps::DEFAULT_DISK_MB)
            })),
            run_as,
            program,
            args,
            cgroup: None,
            cpus: Vec::new(),
            build: super::helper::BUILD.to_string(),
        },
        env,
        _folder: folder,
        _uid: claim.map(|(_, lock)| lock),
    })
}

/// How a bot's folder goes into its private folder.
#[derive(Debug, PartialEq)]
enum CopyPlan {
    /// Copied whole.
    All,
    /// Over the copy's budget: copied but for these files of [`LINKED_BYTES`] or more,
    /// which are linked.
    Linking(Vec<PathBuf>),
    /// Still over the budget without its big files, or holding more than
    /// [`MAX_COPY_ENTRIES`]: read where it is.
    InPlace,
}

/// The [`CopyPlan`] for `dir`, but for what `skip` names and what is beneath it, from one
/// walk (links not followed) that stops as soon as the folder is known to be too big.
fn copy_plan(dir: &Path, skip: &dyn Fn(&Path) -> bool) -> CopyPlan {
    #[derive(Default)]
    struct Walk {
        entries: usize,
        bytes: u64,
        small_bytes: u64,
        big: Vec<PathBuf>,
    }
    /// False once the folder is too big to copy.
    fn walk(dir: &Path, skip: &dyn Fn(&Path) -> bool, seen: &mut Walk) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return true;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if skip(&path) {
                continue;
            }
            seen.entries += 1;
            if seen.entries > MAX_COPY_ENTRIES {
                return false;
            }
            match entry.file_type() {
                Ok(t) if t.is_dir() && !walk(&path, skip, seen) => return false,
                Ok(t) if t.is_file() => {
                    let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                    seen.bytes += size;
                    if size >= LINKED_BYTES {
                        seen.big.push(path);
                    } else {
                        seen.small_bytes += size;
                        if seen.small_bytes > MAX_COPY_BYTES {
                            return false;
                        }
                    }
                }
                _ => {}
            }
        }
        true
    }
    let mut seen = Walk::default();
    if !walk(dir, skip, &mut seen) {
        CopyPlan::InPlace
    } else if seen.bytes > MAX_COPY_BYTES {
        CopyPlan::Linking(seen.big)
    } else {
        CopyPlan::All
    }
}

/// Where jails are made: `/var/tmp` (so that a jail's `/tmp` can be its own folder without
/// hiding the folder's own path), else the system's temporary folder.
fn base() -> PathBuf {
    let var_tmp = Path::new("/var/tmp");
    let writable = rustix::fs::access(var_tmp, rustix::fs::Access::WRITE_OK).is_ok();
    if var_tmp.is_dir() && writable {
        var_tmp.to_path_buf()
    } else {
        std::env::temp_dir()
    }
}

fn is_system(path: &Path) -> bool {
    SYSTEM.iter().any(|s| path.starts_with(s))
}

/// Makes `program` an absolute path the jail can run, and adds the runtime it lives in to
/// `read_only`; the runtime's `bin` folder, when it is not the system's.
fn resolve_program(
    program: &mut String,
    origin: &Path,
    read_only: &mut Vec<PathBuf>,
) -> io::Result<Option<PathBuf>> {
    let found = if program.contains('/') {
        Some(origin.join(program.as_str()))
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(program.as_str()))
                .find(|p| rustix::fs::access(p, rustix::fs::Access::EXEC_OK).is_ok() && p.is_file())
        })
    };
    let Some(found) = found.filter(|p| p.exists()) else {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            "No such file or directory (os error 2)",
        ));
    };
    // Found but not runnable: the same failure to start as without a jail, not a jail
    // that ends at once.
    if found.is_dir() || rustix::fs::access(&found, rustix::fs::Access::EXEC_OK).is_err() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "Permission denied (os error 13)",
        ));
    }
    Ok(runtime_of(program, found, read_only))
}

fn runtime_of(
    program: &mut String,
    found: PathBuf,
    read_only: &mut Vec<PathBuf>,
) -> Option<PathBuf> {
    let name = found.file_name()?.to_string_lossy().into_owned();
    // A Python that is a script (a pyenv shim) is asked where its interpreter is; a
    // virtual environment keeps its own path (its pyvenv.cfg beside `bin`).
    let is_script = || {
        let mut head = [0u8; 2];
        std::fs::File::open(&found)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok_and(|()| &head == b"#!")
    };
    let venv = found
        .parent()
        .and_then(Path::parent)
        .filter(|root| root.join("pyvenv.cfg").is_file())
        .map(Path::to_path_buf);
    if let Some(root) = venv {
        read_only.push(root.clone());
        if let Ok(real) = std::fs::canonicalize(&found)
            && let Some(home) = real.parent().and_then(Path::parent)
            && !is_system(home)
        {
            read_only.push(home.to_path_buf());
        }
        *program = found.to_string_lossy().into_owned();
        return found.parent().map(Path::to_path_buf);
    }
    if name.starts_with("python")
        && is_script()
        && let Some((executable, prefix)) = python_runtime(&found)
    {
        *program = executable.to_string_lossy().into_owned();
        if !is_system(&prefix) {
            read_only.push(prefix.clone());
            return executable.parent().map(Path::to_path_buf);
        }
        return None;
    }
    let real = std::fs::canonicalize(&found).unwrap_or(found.clone());
    *program = real.to_string_lossy().into_owned();
    if is_system(&real) {
        return None;
    }
    // An entrant's own program (a protocol bot in a `bin` folder) is no runtime: its
    // folder is read, not the folder above, which may hold other bots and the results.
    if super::entrants::is_entrants(&found) || super::entrants::is_entrants(&real) {
        read_only.extend(real.parent().map(Path::to_path_buf));
        return None;
    }
    let bin = real.parent()?;
    if bin.file_name().is_some_and(|n| n == "bin")
        && let Some(home) = bin.parent()
    {
        read_only.push(home.to_path_buf());
        return Some(bin.to_path_buf());
    }
    read_only.push(real.clone());
    None
}

/// A Python's real executable and its base prefix.
type PythonRuntime = Option<(PathBuf, PathBuf)>;

/// [`PythonRuntime`] of `python`, asked once per interpreter, without `site` (`-S`): where
/// the interpreter lives does not depend on it, and a `site` with `.pth` files, or a
/// `sitecustomize` that prints, cost tens of milliseconds of every `arbiter play` run with a
/// version manager's `python3`, or put its own line first.
fn python_runtime(python: &Path) -> PythonRuntime {
    static KNOWN: Mutex<Option<HashMap<PathBuf, PythonRuntime>>> = Mutex::new(None);
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    known
        .get_or_insert_with(HashMap::new)
        .entry(python.to_path_buf())
        .or_insert_with(|| {
            let out = Command::new(python)
                .args([
                    "-S",
                    "-c",
                    "import sys; print(sys.executable); print(sys.base_prefix)",
                ])
                .stdin(std::process::Stdio::null())
                .output()
                .ok()?;
            let text = String::from_utf8(out.stdout).ok()?;
            let mut lines = text.lines();
            let executable = PathBuf::from(lines.next()?);
            let prefix = PathBuf::from(lines.next()?);
            let executable = std::fs::canonicalize(&executable).unwrap_or(executable);
            (executable.is_absolute() && prefix.is_absolute()).then_some((executable, prefix))
        })
        .clone()
}

fn chown_tree(path: &Path, id: u32) -> io::Result<()> {
    std::os::unix::fs::lchown(path, Some(id), Some(id))?;
    if std::fs::symlink_metadata(path)?.is_dir() {
        for entry in std::fs::read_dir(path)? {
            chown_tree(&entry?.path(), id)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_behind_a_script_is_found_without_running_its_site() {
        let asked = |python: &Path, what: &str| -> PathBuf {
            let out = Command::new(python)
                .args(["-c", &format!("import sys; print(sys.{what})")])
                .output()
                .expect("python3 runs");
            PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
        };
        let real = asked(Path::new("python3"), "executable");
        let dir = tempfile::tempdir().unwrap();
        // A wrapper, as a version manager's shim is, whose Python has a `sitecustomize`
        // that prints a line of its own and takes its time.
        let site = dir.path().join("site");
        std::fs::create_dir(&site).unwrap();
        std::fs::write(
            site.join("sitecustomize.py"),
            "import time\nprint('sitecustomize was here')\ntime.sleep(0.5)\n",
        )
        .unwrap();
        let wrapper = dir.path().join("python3");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\nPYTHONPATH={} exec {} \"$@\"\n",
                site.display(),
                real.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        let (executable, prefix) = python_runtime(&wrapper).expect("the wrapper's Python");
        assert_eq!(executable, std::fs::canonicalize(&real).unwrap());
        assert_eq!(prefix, asked(&real, "base_prefix"));
    }

    /// A file of `bytes` that takes no disk (sparse).
    fn sized(path: &Path, bytes: u64) {
        std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
    }

    #[test]
    fn a_folder_within_the_budget_is_copied_whole_and_a_big_one_links_its_big_files() {
        let dir = tempfile::tempdir().unwrap();
        sized(&dir.path().join("bot.py"), 1000);
        std::fs::create_dir(dir.path().join("data")).unwrap();
        sized(&dir.path().join("data/weights.npy"), 1 << 20);
        assert_eq!(copy_plan(dir.path(), &|_| false), CopyPlan::All);
        let model = dir.path().join("data/model.bin");
        sized(&model, MAX_COPY_BYTES);
        assert_eq!(
            copy_plan(dir.path(), &|_| false),
            CopyPlan::Linking(vec![model.clone()])
        );
        // What the copy skips (another team's folder) is not counted.
        let skip = |p: &Path| p == model;
        assert_eq!(copy_plan(dir.path(), &skip), CopyPlan::All);
    }

    #[test]
    fn a_folder_of_small_files_over_the_budget_or_of_too_many_files_is_read_in_place() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..17 {
            sized(&dir.path().join(format!("part{i}")), LINKED_BYTES - 1);
        }
        assert_eq!(copy_plan(dir.path(), &|_| false), CopyPlan::InPlace);
        let many = tempfile::tempdir().unwrap();
        for i in 0..MAX_COPY_ENTRIES / 100 {
            let sub = many.path().join(format!("d{i}"));
            std::fs::create_dir(&sub).unwrap();
            for j in 0..99 {
                std::fs::File::create(sub.join(j.to_string())).unwrap();
            }
        }
        assert_eq!(copy_plan(many.path(), &|_| false), CopyPlan::All);
        std::fs::File::create(many.path().join("one-more")).unwrap();
        assert_eq!(copy_plan(many.path(), &|_| false), CopyPlan::InPlace);
    }
}
