//! Inside the door: what `arbiter confine` does between being started for a bot and
//! `exec`ing the bot's program. One small step per layer, each failing loudly with what
//! the kernel refused (on stderr and on the jail's report, [`super::report`]) and
//! nothing started half confined:
//!
//! 1. (namespaces) new user, mount, pid, network, IPC and UTS namespaces; the caller's uid
//!    mapped to itself; a fork, so that the bot is pid 1 of its own pid namespace, born in
//!    the bot's cgroup where it has one;
//! 2. (namespaces) a new root on a tmpfs: the system folders and the bot's runtime bound
//!    read-only, its private folder read-write (also `/tmp`), a fresh `/proc`, a minimal
//!    `/dev`; `pivot_root` into it, the old root detached, the new root made read-only;
//! 3. as root, the bot's own uid (one claimed for it alone), in the namespace as outside it;
//! 4. no new privileges, then Landlock: read and execute beneath the system folders and
//!    the runtime, everything beneath the private folder, no TCP, no signal or abstract
//!    socket outside its own domain;
//! 5. resource limits, then the seccomp filter, last: after it, no mount, namespace,
//!    ptrace, bpf, keyring or io_uring call succeeds;
//! 6. `exec` of the bot's program.

use super::Level;
pub(crate) use super::plan::{Jail, SETUP_FAILED, StepFailed};
use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};

/// The system folders every bot may read: programs, libraries, configuration.
pub(crate) const SYSTEM: &[&str] = &[
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc",
];

/// Devices a program may expect.
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

fn step<T>(what: &str, result: Result<T, impl std::fmt::Display>) -> Result<T, StepFailed> {
    result.map_err(|e| StepFailed(format!("{what}: {e}")))
}

/// Confines this process as `jail` says and runs the bot's program; returns only on failure.
pub(crate) fn enter(jail: &Jail) -> StepFailed {
    match enter_steps(jail) {
        Ok(never) => match never {},
        Err(e) => e,
    }
}

fn enter_steps(jail: &Jail) -> Result<std::convert::Infallible, StepFailed> {
    super::beside::tie_to_arbiter()?;
    // Descriptors arbiter inherited from its caller (a shell's, a job runner's) are not
    // the bot's: they close at its `exec` (not before: the report is written until then).
    // SAFETY: close_range takes plain integers.
    unsafe {
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        )
    };
    if !jail.cpus.is_empty() {
        let mut cpus = rustix::thread::CpuSet::new();
        jail.cpus.iter().for_each(|&cpu| cpus.set(cpu));
        // Only where it runs: a bot left on one CPU is slower, not less confined.
        let _ = rustix::thread::sched_setaffinity(None, &cpus);
    }
    let program = cstring(&jail.program)?;
    let mut argv = vec![program.clone()];
    for a in &jail.args {
        argv.push(cstring(a)?);
    }
    // The tasks the kernel already counts against the bot's uid: counted here, before a
    // pid namespace hides them, unless the bot gets a user namespace of its own (whose
    // count starts afresh, and is counted inside).
    let tasks_base = match (jail.level, jail.run_as) {
        (_, _) if jail.tasks.is_none() => Some(0),
        (Level::Namespaces, None) => None,
        (_, Some(id)) => Some(super::caps::tasks_of(id)),
        (Level::Landlock, None) => Some(super::caps::tasks_of(rustix::process::getuid().as_raw())),
    };
    match jail.level {
        Level::Namespaces => enter_namespaces(jail)?,
        Level::Landlock => super::beside::stay_beside(jail)?,
    }
    if let Some(id) = jail.run_as {
        drop_to(id)?;
    }
    super::beside::die_with_helper()?;
    let tasks_base =
        tasks_base.unwrap_or_else(|| super::caps::tasks_of(rustix::process::getuid().as_raw()));
    step(
        "no_new_privs",
        rustix::thread::set_no_new_privs(true).map_err(io::Error::from),
    )?;
    landlock(jail)?;
    super::caps::apply(jail, tasks_base)?;
    super::filter::install(rustix::process::getpid().as_raw_nonzero().get() as u32)?;
    let mut pointers: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    pointers.push(std::ptr::null());
    // SAFETY: NUL-ended strings and a NULL-ended array that outlive the call.
    unsafe { libc::execvp(program.as_ptr(), pointers.as_ptr()) };
    let err = io::Error::last_os_error();
    let why = match jail.run_as {
        Some(id) if err.kind() == io::ErrorKind::PermissionDenied => {
            closed_to_the_bots_user(jail, id)
        }
        _ => String::new(),
    };
    Err(StepFailed(format!(
        "cannot run `{}`: {err}{why}",
        jail.program
    )))
}

/// Why a bot started by root cannot run its program: it runs as `id`, never as root, and
/// at level 2 it reaches the program where it is, through folders that may be closed to
/// other users (a Python under `/root/.pyenv`); in a new root those folders are made open.
fn closed_to_the_bots_user(jail: &Jail, id: u32) -> String {
    let place = match jail.level {
        Level::Landlock => {
            "at this level (Landlock and seccomp, no namespaces) it reaches the program \
             where it is, so the program, its runtime and every folder above them must be \
             open to other users"
        }
        Level::Namespaces => "so the program and its runtime must be readable by other users",
    };
    format!(
        " (a bot started by root runs as uid {id}, not as root; {place}: install them \
         elsewhere, e.g. under /opt or /usr/local, or run arbiter as an ordinary user)"
    )
}

fn cstring(text: &str) -> Result<CString, StepFailed> {
    CString::new(text).map_err(|_| StepFailed(format!("`{text}` holds a NUL byte")))
}

/// Steps 1 and 2: the namespaces, the fork (the parent waits and passes the bot's end on),
/// the new root.
fn enter_namespaces(jail: &Jail) -> Result<(), StepFailed> {
    use rustix::thread::UnshareFlags as F;
    let (uid, gid) = (
        rustix::process::getuid().as_raw(),
        rustix::process::getgid().as_raw(),
    );
    // Root makes the namespaces directly and gives the bot another uid after the mounts;
    // anyone else makes a user namespace first, mapping their own ids to themselves.
    let as_root = jail.run_as.is_some();
    // Opened before the mount namespace changes, where its path means what the referee
    // meant.
    let cgroup = jail
        .cgroup
        .as_ref()
        .and_then(|path| super::cgroup::open_folder(path).ok());
    let mut flags = F::NEWNS | F::NEWPID | F::NEWNET | F::NEWIPC | F::NEWUTS;
    if !as_root {
        flags |= F::NEWUSER;
    }
    // SAFETY: no file-descriptor table or file-system information is shared or unshared.
    step(
        "unshare(user, mount, pid, network, ipc, uts namespaces)",
        unsafe { rustix::thread::unshare_unsafe(flags) },
    )?;
    if !as_root {
        step(
            "write /proc/self/setgroups",
            std::fs::write("/proc/self/setgroups", "deny"),
        )?;
        step(
            "write /proc/self/uid_map",
            std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n")),
        )?;
        step(
            "write /proc/self/gid_map",
            std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n")),
        )?;
    }
    // The bot's end travels from the namespace's init to this process as its raw wait
    // status, through a pipe: an init cannot end itself by a signal.
    let (status_r, status_w) = step(
        "make a pipe",
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC),
    )?;
    match fork_in(cgroup.as_ref(), "fork into the pid namespace")? {
        None => {}
        Some(init) => {
            drop(status_w);
            super::beside::pass_on_the_end(init, status_r, jail)
        }
    }
    drop(status_r);
    // pid 1 of the namespace: dies with the helper; when it ends, the kernel ends every
    // process of the namespace.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    new_root(jail)?;
    match fork("start the bot in the pid namespace")? {
        // The bot, pid 2: a process like any other, which signals reach.
        None => {
            drop(status_w);
            Ok(())
        }
        Some(bot) => be_init(bot, status_w),
    }
}

/// [`fork`], the child born in `cgroup` where there is one and the kernel lets it
/// ([`super::cgroup::fork_in`]). This child is the pid namespace's first process, and when
/// it ends the kernel ends every process the bot started.
fn fork_in(
    cgroup: Option<&std::os::fd::OwnedFd>,
    what: &str,
) -> Result<Option<libc::pid_t>, StepFailed> {
    // SAFETY: this process is single-threaded (it was just exec'd and started no thread).
    unsafe { super::cgroup::fork_in(cgroup) }.map_err(|e| StepFailed(format!("{what}: {e}")))
}

fn fork(what: &str) -> Result<Option<libc::pid_t>, StepFailed> {
    // SAFETY: this process is single-threaded (it was just exec'd and started no thread).
    match unsafe { libc::fork() } {
        -1 => Err(StepFailed(format!(
            "{what}: {}",
            io::Error::last_os_error()
        ))),
        0 => Ok(None),
        child => Ok(Some(child)),
    }
}

/// pid 1 of the namespace: reaps every orphan, and when the bot ends, hands its wait status
/// on and exits (taking the rest of the namespace with it).
fn be_init(bot: libc::pid_t, status_w: std::os::fd::OwnedFd) -> ! {
    super::report::let_go();
    super::beside::release_stdio(false);
    loop {
        let mut status = 0;
        // SAFETY: waits for any child of this process.
        let got = unsafe { libc::waitpid(-1, &mut status, 0) };
        if got == bot {
            let _ = rustix::io::write(&status_w, &status.to_ne_bytes());
            std::process::exit(0);
        }
        if got == -1 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            std::process::exit(SETUP_FAILED);
        }
    }
}

/// Step 2: the new root, made read-only, with the bot's folders bound into it.
fn new_root(jail: &Jail) -> Result<(), StepFailed> {
    use rustix::mount::{MountFlags as M, MountPropagationFlags as P};
    step(
        "make every mount private",
        rustix::mount::mount_change(c"/", P::PRIVATE | P::REC),
    )?;
    let root = &jail.root;
    step(
        "mount a tmpfs for the new root",
        rustix::mount::mount(
            c"tmpfs",
            root.as_path(),
            c"tmpfs",
            M::NOSUID | M::NODEV,
            c"mode=0755",
        ),
    )?;
    let inside = |path: &Path| root.join(path.strip_prefix("/").unwrap_or(path));
    let mut binds: Vec<(PathBuf, bool)> = Vec::new();
    for system in SYSTEM {
        let path = Path::new(system);
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                // usr-merged systems: /bin -> usr/bin; the link is made, its target bound.
                let target = step("read a system link", std::fs::read_link(path))?;
                step(
                    "make a system link in the new root",
                    std::os::unix::fs::symlink(target, inside(path)),
                )?;
            }
            Ok(_) => binds.push((path.to_path_buf(), false)),
            Err(_) => {}
        }
    }
    for (path, writable) in &binds {
        bind(path, &inside(path), *writable)?;
    }
    // The private folder, with what the bot writes capped by the kernel where it can be.
    let private = inside(&jail.private);
    if !capped_private(jail, &private)? {
        bind(&jail.private, &private, true)?;
    }
    // The jail's /tmp is its private folder, unless that would hide the folder's own path;
    // what the bot reads from elsewhere is bound after it (under /tmp too, if it lies there).
    if !jail.private.starts_with("/tmp") {
        bind(&private, &root.join("tmp"), true)?;
    }
    for path in &jail.read_only {
        bind(path, &inside(path), false)?;
    }
    for path in &jail.hidden {
        hide(&inside(path))?;
    }
    let proc_ = root.join("proc");
    step("make /proc", std::fs::create_dir_all(&proc_))?;
    step(
        "mount a /proc of the new pid namespace",
        rustix::mount::mount(
            c"proc",
            proc_.as_path(),
            c"proc",
            M::NOSUID | M::NODEV | M::NOEXEC,
            c"",
        ),
    )?;
    let dev = root.join("dev");
    step("make /dev", std::fs::create_dir_all(&dev))?;
    for device in DEVICES {
        let host = Path::new("/dev").join(device);
        if host.exists() {
            let target = dev.join(device);
            step("make a device's place", std::fs::write(&target, b""))?;
            step(
                &format!("bind {}", host.display()),
                rustix::mount::mount_bind(host.as_path(), target.as_path()),
            )?;
        }
    }
    for (link, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        let _ = std::os::unix::fs::symlink(target, dev.join(link));
    }
    let old = root.join(".old-root");
    step("make the old root's place", std::fs::create_dir_all(&old))?;
    step(
        "pivot_root into the new root",
        rustix::process::pivot_root(root.as_path(), old.as_path()),
    )?;
    step("chdir /", rustix::process::chdir(c"/"))?;
    step(
        "detach the old root",
        rustix::mount::unmount(c"/.old-root", rustix::mount::UnmountFlags::DETACH),
    )?;
    let _ = std::fs::remove_dir("/.old-root");
    step(
        "make the new root read-only",
        rustix::mount::mount_remount(c"/", M::BIND | M::RDONLY | M::NOSUID | M::NODEV, c""),
    )?;
    step(
        "enter the working folder",
        rustix::process::chdir(jail.cwd.as_path()),
    )?;
    Ok(())
}

/// Binds `from` at `to` (made to match: a folder or a file), read-only unless `writable`.
fn bind(from: &Path, to: &Path, writable: bool) -> Result<(), StepFailed> {
    use rustix::mount::MountFlags as M;
    let is_dir = std::fs::metadata(from).is_ok_and(|m| m.is_dir());
    if is_dir {
        step(
            &format!("make {}", to.display()),
            std::fs::create_dir_all(to),
        )?;
    } else {
        if let Some(parent) = to.parent() {
            step(
                &format!("make {}", parent.display()),
                std::fs::create_dir_all(parent),
            )?;
        }
        if !to.exists() {
            step(&format!("make {}", to.display()), std::fs::write(to, b""))?;
        }
    }
    step(
        &format!("bind {}", from.display()),
        rustix::mount::mount_bind_recursive(from, to),
    )?;
    // A bind mount is as writable as its source until remounted.
    let mut flags = M::BIND | M::NOSUID | M::NODEV;
    if !writable {
        flags |= M::RDONLY;
    }
    step(
        &format!("make {} read-only", from.display()),
        rustix::mount::mount_remount(to, flags, c""),
    )
}

/// Mounts the private folder at `at` as an overlay: the prepared copy beneath, read as it
/// is, and above it a tmpfs of the bot's disk cap, which takes everything the bot writes
/// (new files, changed ones, `fallocate`d blocks, files unlinked but held open), so that
/// the kernel refuses a write past the cap (`ENOSPC`), whatever the bot's modes, and what
/// it wrote goes with the namespace. The tmpfs's own mount is detached once the overlay
/// holds it: the bot sees only the folder. `false` (nothing mounted) where the kernel
/// mounts no overlay here (before Linux 5.11 in a user namespace): the jail's helper then
/// measures the folder ([`super::beside`]).
fn capped_private(jail: &Jail, at: &Path) -> Result<bool, StepFailed> {
    use rustix::mount::MountFlags as M;
    let Some(mb) = jail.disk_mb else {
        return Ok(false);
    };
    let disk = jail.root.join(".disk");
    step("make the disk's place", std::fs::create_dir_all(&disk))?;
    let options = cstring(&format!(
        "size={mb}m,nr_inodes={},mode=0755",
        super::caps::MAX_NEW_ENTRIES + 1000
    ))?;
    step(
        "mount a tmpfs of the disk cap",
        rustix::mount::mount(
            c"tmpfs",
            disk.as_path(),
            c"tmpfs",
            M::NOSUID | M::NODEV,
            options.as_c_str(),
        ),
    )?;
    let (lower, upper, work) = (disk.join("lower"), disk.join("upper"), disk.join("work"));
    for dir in [&lower, &upper, &work] {
        step("make the overlay's folders", std::fs::create_dir(dir))?;
    }
    if let Some(id) = jail.run_as {
        step(
            "give the bot its writes' folder",
            std::os::unix::fs::chown(&upper, Some(id), Some(id)),
        )?;
    }
    // Beneath, by a path of arbiter's own naming: the overlay's options could not hold the
    // folder's name (a `,` or `:` in a team's folder).
    step(
        "bind the private folder beneath the overlay",
        rustix::mount::mount_bind(jail.private.as_path(), lower.as_path()),
    )?;
    step(
        "make the private folder's place",
        std::fs::create_dir_all(at),
    )?;
    let layers = format!(
        "lowerdir={},upperdir={},workdir={}",
        lower.display(),
        upper.display(),
        work.display()
    );
    let overlay = |extra: &str| {
        let options = cstring(&format!("{layers}{extra}")).map_err(|_| rustix::io::Errno::INVAL)?;
        rustix::mount::mount(
            c"overlay",
            at,
            c"overlay",
            M::NOSUID | M::NODEV,
            options.as_c_str(),
        )
    };
    // In a user namespace the overlay keeps its own records in `user.` attributes.
    let mounted = overlay("").or_else(|_| overlay(",userxattr"));
    let detach = || rustix::mount::unmount(disk.as_path(), rustix::mount::UnmountFlags::DETACH);
    if mounted.is_err() {
        let _ = rustix::mount::unmount(lower.as_path(), rustix::mount::UnmountFlags::DETACH);
        let _ = detach();
        let _ = std::fs::remove_dir(&disk);
        return Ok(false);
    }
    let _ = rustix::mount::unmount(lower.as_path(), rustix::mount::UnmountFlags::DETACH);
    step("detach the disk's own mount", detach())?;
    // The folders arbiter carried in beside the bot's own files (`.arbiter-NAME`: a console
    // program's IN and OUT, a build's output) are written where arbiter reads them back,
    // through the overlay: the helper measures them there.
    for entry in std::fs::read_dir(&jail.private)
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(".arbiter-")
            && entry.file_type().is_ok_and(|t| t.is_dir())
        {
            bind(&entry.path(), &at.join(&name), true)?;
        }
    }
    Ok(true)
}

/// Covers `path` in the new root with an empty read-only folder or file.
fn hide(path: &Path) -> Result<(), StepFailed> {
    use rustix::mount::MountFlags as M;
    let what = format!("hide {}", path.display());
    if path.is_dir() {
        step(
            &what,
            rustix::mount::mount(
                c"tmpfs",
                path,
                c"tmpfs",
                M::RDONLY | M::NOSUID | M::NODEV,
                c"mode=0",
            ),
        )
    } else if path.exists() {
        step(
            &what,
            rustix::mount::mount_bind(Path::new("/dev/null"), path),
        )
    } else {
        Ok(())
    }
}

/// Step 3, for a caller that is root: the bot runs as `id`, with no supplementary group.
fn drop_to(id: u32) -> Result<(), StepFailed> {
    let (uid, gid) = (
        rustix::process::Uid::from_raw(id),
        rustix::process::Gid::from_raw(id),
    );
    step(
        "drop supplementary groups",
        rustix::thread::set_thread_groups(&[]),
    )?;
    step(
        "set the gid",
        rustix::thread::set_thread_res_gid(gid, gid, gid),
    )?;
    step(
        "set the uid",
        rustix::thread::set_thread_res_uid(uid, uid, uid),
    )
}

/// Step 4: Landlock, as far as the kernel's ABI goes.
fn landlock(jail: &Jail) -> Result<(), StepFailed> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, PathBeneath, PathFd, Ruleset,
        RulesetAttr, RulesetCreatedAttr, Scope,
    };
    let abi = ABI::V6;
    let fail = |e: landlock::RulesetError| StepFailed(format!("Landlock: {e}"));
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(fail)?
        .handle_access(AccessNet::from_all(abi))
        .map_err(fail)?
        .scope(Scope::from_all(abi))
        .map_err(fail)?
        .create()
        .map_err(fail)?;
    let mut readable: Vec<PathBuf> = SYSTEM.iter().map(PathBuf::from).collect();
    readable.extend(jail.read_only.iter().cloned());
    readable.push("/proc".into());
    // The devices a program may expect, one by one: never /dev itself, which holds the
    // terminal (a process that outlived arbiter could read what is typed next).
    readable.extend(DEVICES.iter().map(|d| Path::new("/dev").join(d)));
    for path in readable {
        let hidden: Vec<&PathBuf> = jail
            .hidden
            .iter()
            .filter(|h| h.starts_with(&path))
            .collect();
        ruleset = super::readable::readable_but(ruleset, &path, &hidden, abi).map_err(fail)?;
    }
    for (path, access) in [
        (jail.private.clone(), AccessFs::from_all(abi)),
        (PathBuf::from("/dev/null"), AccessFs::from_file(abi)),
    ] {
        let fd = PathFd::new(&path)
            .map_err(|e| StepFailed(format!("Landlock: {}: {e}", path.display())))?;
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, access))
            .map_err(fail)?;
    }
    ruleset.restrict_self().map_err(fail)?;
    Ok(())
}
