//! Step 5 of a jail, last before `exec`: the seccomp filter. Landlock (to ABI 7) governs
//! files, TCP, abstract sockets and signals; what it leaves open is closed here, the same
//! at both levels:
//!
//! - calls a bot has no use for, which reach the kernel or other processes: `ptrace`,
//!   `process_vm_*`, `bpf`, keyrings, mounts, namespaces, `io_uring`, module loading;
//! - sockets of every family (UDP, pathname Unix sockets such as a session bus or an
//!   ssh-agent, netlink); `socketpair`, which reaches nothing outside the bot, stays;
//! - SysV shared memory, semaphores and message queues, which are shared with the user's
//!   other programs and outlive the run;
//! - `memfd_create`, whose pages no address-space limit counts;
//! - `setsid` and `setpgid`: every process of the bot stays in its jail's process group;
//! - calls that change another process (its limits, priority, CPUs, scheduling, I/O
//!   priority, memory): allowed on the bot's own process only (`0` or its pid).
//!
//! Each refused call fails with `EPERM`; `clone3`, whose flags a filter cannot read, with
//! `ENOSYS`, so that the C library falls back on `clone`, whose namespace flags are checked.

use super::plan::StepFailed;
use seccompiler::{
    SeccompAction, SeccompCmpArgLen as Len, SeccompCmpOp as Op, SeccompCondition as Cond,
    SeccompFilter, SeccompRule,
};
use std::collections::BTreeMap;

/// The calls refused whatever their arguments.
const REFUSED: &[i64] = &[
    libc::SYS_ptrace,
    libc::SYS_process_vm_readv,
    libc::SYS_process_vm_writev,
    libc::SYS_process_madvise,
    libc::SYS_kcmp,
    libc::SYS_pidfd_getfd,
    libc::SYS_bpf,
    libc::SYS_perf_event_open,
    libc::SYS_userfaultfd,
    libc::SYS_keyctl,
    libc::SYS_add_key,
    libc::SYS_request_key,
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_unshare,
    libc::SYS_setns,
    libc::SYS_io_uring_setup,
    libc::SYS_io_uring_enter,
    libc::SYS_io_uring_register,
    libc::SYS_open_tree,
    libc::SYS_move_mount,
    libc::SYS_fsopen,
    libc::SYS_fsmount,
    libc::SYS_fsconfig,
    libc::SYS_fspick,
    libc::SYS_mount_setattr,
    libc::SYS_kexec_load,
    libc::SYS_init_module,
    libc::SYS_finit_module,
    libc::SYS_delete_module,
    // Sockets: none of any family.
    libc::SYS_socket,
    // SysV IPC: an id is a small number anyone can guess, so every call is refused, not
    // only the ones that make a segment, semaphore set or queue.
    libc::SYS_shmget,
    libc::SYS_shmat,
    libc::SYS_shmctl,
    libc::SYS_semget,
    libc::SYS_semop,
    libc::SYS_semtimedop,
    libc::SYS_semctl,
    libc::SYS_msgget,
    libc::SYS_msgsnd,
    libc::SYS_msgrcv,
    libc::SYS_msgctl,
    libc::SYS_memfd_create,
    libc::SYS_memfd_secret,
    libc::SYS_setsid,
    libc::SYS_setpgid,
];

/// Calls whose first argument is a pid: allowed on `0` (the caller) and the bot's own pid.
const ON_OWN_PID: &[i64] = &[
    libc::SYS_prlimit64,
    libc::SYS_sched_setaffinity,
    libc::SYS_sched_setscheduler,
    libc::SYS_sched_setparam,
    libc::SYS_sched_setattr,
    libc::SYS_migrate_pages,
    libc::SYS_move_pages,
];

/// `setpriority`'s and `ioprio_set`'s "which" for one process (`PRIO_PROCESS`,
/// `IOPRIO_WHO_PROCESS`): a group or a user (every process of the uid) is refused.
const PRIO_PROCESS: u64 = 0;
const IOPRIO_WHO_PROCESS: u64 = 1;

fn fail(e: impl std::fmt::Display) -> StepFailed {
    StepFailed(format!("seccomp: {e}"))
}

fn cond(arg: u8, op: Op, value: u64) -> Result<Cond, StepFailed> {
    Cond::new(arg, Len::Dword, op, value).map_err(fail)
}

/// A rule that matches when argument `arg` names a process other than the bot's own.
fn not_own(arg: u8, own: u64) -> Result<SeccompRule, StepFailed> {
    SeccompRule::new(vec![cond(arg, Op::Ne, 0)?, cond(arg, Op::Ne, own)?]).map_err(fail)
}

/// The rules of the filter: each call listed fails with `EPERM` when one of its rules
/// matches (an empty list: always). `own` is the bot's pid as its own calls give it.
fn rules(own: u32) -> Result<BTreeMap<i64, Vec<SeccompRule>>, StepFailed> {
    let own = u64::from(own);
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for &call in REFUSED {
        rules.insert(call, vec![]);
    }
    for &call in ON_OWN_PID {
        rules.insert(call, vec![not_own(0, own)?]);
    }
    // pidfd_open(0) is no pid: only the bot's own is allowed.
    rules.insert(
        libc::SYS_pidfd_open,
        vec![SeccompRule::new(vec![cond(0, Op::Ne, own)?]).map_err(fail)?],
    );
    for (call, which) in [
        (libc::SYS_setpriority, PRIO_PROCESS),
        (libc::SYS_ioprio_set, IOPRIO_WHO_PROCESS),
    ] {
        let other_kind = SeccompRule::new(vec![cond(0, Op::Ne, which)?]).map_err(fail)?;
        rules.insert(call, vec![other_kind, not_own(1, own)?]);
    }
    let namespaces = (libc::CLONE_NEWUSER
        | libc::CLONE_NEWNS
        | libc::CLONE_NEWPID
        | libc::CLONE_NEWNET
        | libc::CLONE_NEWIPC
        | libc::CLONE_NEWUTS
        | libc::CLONE_NEWCGROUP) as u64;
    let mut clone_rules = Vec::new();
    for bit in (0..64).map(|b| 1u64 << b).filter(|b| namespaces & b != 0) {
        let condition = Cond::new(0, Len::Qword, Op::MaskedEq(bit), bit).map_err(fail)?;
        clone_rules.push(SeccompRule::new(vec![condition]).map_err(fail)?);
    }
    rules.insert(libc::SYS_clone, clone_rules);
    Ok(rules)
}

/// Installs the filter on this process (and so on everything it starts); `own` is the
/// bot's pid, as this process sees it.
pub(crate) fn install(own: u32) -> Result<(), StepFailed> {
    let arch = std::env::consts::ARCH.try_into().map_err(fail)?;
    let denied = SeccompFilter::new(
        rules(own)?,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EPERM as u32),
        arch,
    )
    .map_err(fail)?;
    let program: seccompiler::BpfProgram = denied.try_into().map_err(fail)?;
    let mut nosys: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    nosys.insert(libc::SYS_clone3, vec![]);
    let clone3 = SeccompFilter::new(
        nosys,
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .map_err(fail)?;
    let clone3: seccompiler::BpfProgram = clone3.try_into().map_err(fail)?;
    seccompiler::apply_filter(&program).map_err(fail)?;
    seccompiler::apply_filter(&clone3).map_err(fail)?;
    Ok(())
}
