//! Files a bot or a submission could have written, read without trusting them.
//!
//! A bot that writes its output file can put a FIFO there (opening it for reading blocks
//! until a writer comes, forever), a symbolic link to a file only the referee can read, a
//! hard link, a device or a file of gigabytes. Each is opened without following links and
//! without blocking, checked with `fstat` to be a regular file with a single link, and read
//! up to a bound. The reasons given never quote anything of what the name pointed at.
//!
//! Folders that hold code we run later (class caches, unpacked archives) are trusted only
//! when the running user owns them and nobody else can write them.

use rustix::fs::{FileType, Mode, OFlags};
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

/// What was found at a name a bot was asked to write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadBack {
    /// Nothing is there.
    Missing,
    /// A regular file, whole.
    Bytes(Vec<u8>),
    /// Something that is not read: why, without anything of its target.
    Refused(String),
}

/// Reads `relative` beneath the trusted folder `base`, following no link at any step below
/// `base`: only a regular file with one link, at most `limit` bytes, is read.
pub fn read_beneath(base: &Path, relative: &Path, limit: u64) -> ReadBack {
    let mut dir = match open_dir(base) {
        Ok(fd) => fd,
        Err(e) => return ReadBack::Refused(format!("its folder cannot be opened ({e})")),
    };
    let parts: Vec<&std::ffi::OsStr> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(part) => Some(part),
            _ => None,
        })
        .collect();
    if parts.len() != relative.components().count() || parts.is_empty() {
        return ReadBack::Refused("its name is not a plain path below its folder".into());
    }
    let (name, folders) = parts.split_last().expect("not empty");
    for folder in folders {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        dir = match rustix::fs::openat(&dir, *folder, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOENT) => return ReadBack::Missing,
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                return ReadBack::Refused(
                    "a folder on its path is a symbolic link or not a folder: not followed".into(),
                );
            }
            Err(e) => {
                return ReadBack::Refused(format!("a folder on its path cannot be opened ({e})"));
            }
        };
    }
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    match rustix::fs::openat(&dir, *name, flags, Mode::empty()) {
        Ok(fd) => read_regular(fd, limit),
        Err(rustix::io::Errno::NOENT) => ReadBack::Missing,
        Err(rustix::io::Errno::LOOP) => {
            ReadBack::Refused("it is a symbolic link, not a regular file: not followed".into())
        }
        Err(e) => ReadBack::Refused(format!("it cannot be opened ({e})")),
    }
}

/// Reads the file at `path`, following links (the path was named by the user), but only a
/// regular file and only up to `limit` bytes, and without blocking on a FIFO or a device.
pub fn read_regular_file(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_regular(path)?
        .take(limit + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "it is longer than {}",
            bytes_text(limit)
        )));
    }
    Ok(bytes)
}

/// The longest source file read: far beyond any course bot's.
pub(crate) const SOURCE_BYTES: u64 = 16 << 20;

/// A source file of a submission (a bot's code, a helper), as [`read_regular_file`] with
/// `SOURCE_BYTES`: a FIFO or a device placed where code should be is an error, not a
/// hang.
pub fn read_source(path: &Path) -> std::io::Result<Vec<u8>> {
    read_regular_file(path, SOURCE_BYTES)
}

/// A source file a submission's folder holds (found by walking it, not named by the user),
/// as [`read_source`] but refusing a symbolic link rather than following it: the error says
/// so and quotes nothing of where it points.
pub fn read_own_source(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = open_regular_with(path, OFlags::NOFOLLOW).map_err(|e| {
        match e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) {
            true => std::io::Error::other("it is a symbolic link: not followed"),
            false => e,
        }
    })?;
    let mut bytes = Vec::new();
    file.take(SOURCE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > SOURCE_BYTES {
        return Err(std::io::Error::other(format!(
            "it is longer than {}",
            bytes_text(SOURCE_BYTES)
        )));
    }
    Ok(bytes)
}

/// What a submission's source folder holds for a build, walked and read without following
/// any link: a link is neither read nor walked into, only listed.
#[derive(Debug, Default)]
pub struct SourceTree {
    /// Each regular file kept, in path order, with its bytes or why they could not be read.
    pub files: Vec<(std::path::PathBuf, std::io::Result<Vec<u8>>)>,
    /// Each symbolic link met, in path order.
    pub links: Vec<std::path::PathBuf>,
}

/// Walks `root` (a folder of a submission) at most `depth` folder levels down: the regular
/// files `keep` keeps, read with [`read_own_source`], and every link, whatever it points at
/// (a file, a folder, nothing). A folder `enter` refuses is not walked, nor are its links
/// listed.
pub fn source_tree(
    root: &Path,
    depth: usize,
    enter: &dyn Fn(&Path) -> bool,
    keep: &dyn Fn(&Path) -> bool,
) -> SourceTree {
    fn walk(
        dir: &Path,
        depth: usize,
        enter: &dyn Fn(&Path) -> bool,
        keep: &dyn Fn(&Path) -> bool,
        tree: &mut SourceTree,
    ) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // The entry's own kind (lstat): a link is a link, whatever it points at.
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                tree.links.push(path);
            } else if kind.is_dir() {
                if depth > 0 && enter(&path) {
                    walk(&path, depth - 1, enter, keep, tree);
                }
            } else if kind.is_file() && keep(&path) {
                let bytes = read_own_source(&path);
                tree.files.push((path, bytes));
            }
        }
    }
    let mut tree = SourceTree::default();
    walk(root, depth, enter, keep, &mut tree);
    tree.files.sort_by(|a, b| a.0.cmp(&b.0));
    tree.links.sort();
    tree
}

/// Whether the link `link` points out of `folder`: its target, read as written (never
/// followed) and taken from the link's own folder, is not beneath `folder` as named nor
/// beneath where `folder` really is. Only what the target says is used, so a link that
/// reaches out through another link reads as inside; neither is followed.
pub fn link_leaves(link: &Path, folder: &Path) -> bool {
    fn lexical(path: &Path) -> std::path::PathBuf {
        let mut out = std::path::PathBuf::new();
        for part in path.components() {
            match part {
                Component::ParentDir => {
                    out.pop();
                }
                Component::CurDir => {}
                other => out.push(other),
            }
        }
        out
    }
    let Ok(target) = std::fs::read_link(link) else {
        return true;
    };
    let absolute = |p: &Path| lexical(&std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let from = absolute(link.parent().unwrap_or(Path::new(".")));
    let target = lexical(&from.join(target));
    let named = absolute(folder);
    let real = std::fs::canonicalize(folder).unwrap_or_else(|_| named.clone());
    !(target.starts_with(&named) || target.starts_with(&real))
}

/// Opens `path` for reading (following links) without blocking, and only if it is a
/// regular file: a FIFO, socket, device or folder is an error saying which.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_with(path, OFlags::empty())
}

/// [`open_regular`] with `extra` flags (`NOFOLLOW`: a link is an error, `ELOOP`).
fn open_regular_with(path: &Path, extra: OFlags) -> std::io::Result<std::fs::File> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC | extra;
    let fd = rustix::fs::open(path, flags, Mode::empty())?;
    let kind = FileType::from_raw_mode(rustix::fs::fstat(&fd)?.st_mode);
    if kind != FileType::RegularFile {
        return Err(std::io::Error::other(format!(
            "it is {}, not a regular file",
            kind_name(kind)
        )));
    }
    // Reads of a regular file never block; clear the flag for whoever reads it next.
    rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
    Ok(std::fs::File::from(fd))
}

/// Feeds `reader` to `eat` a block at a time (a hash, say), in constant memory; the bytes
/// read.
pub fn for_each_block(mut reader: impl Read, mut eat: impl FnMut(&[u8])) -> std::io::Result<u64> {
    let mut buffer = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        match reader.read(&mut buffer) {
            Ok(0) => return Ok(total),
            Ok(n) => {
                eat(&buffer[..n]);
                total += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Why [`copy_private_tree`] did not copy a whole folder.
#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    /// The folder holds more than the budget, in bytes: the caller decides what then (a
    /// jail reads such a folder where it is).
    #[error("it holds more than {}", bytes_text(*.0))]
    OverBudget(u64),
    /// Reading the folder or writing the copy failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl From<CopyError> for std::io::Error {
    fn from(e: CopyError) -> std::io::Error {
        match e {
            CopyError::OverBudget(_) => std::io::Error::other(e.to_string()),
            CopyError::Io(e) => e,
        }
    }
}

/// Copies the regular files and folders beneath `from` (a folder a program could write) into
/// the new folder `to`, private to the running user; links, FIFOs, sockets and devices are
/// left behind, as is every file `skip` names, and at most `budget` bytes are copied (else
/// [`CopyError::OverBudget`]).
pub fn copy_private_tree(
    from: &Path,
    to: &Path,
    budget: u64,
    skip: &dyn Fn(&Path) -> bool,
) -> Result<(), CopyError> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
    fn walk(
        from: &Path,
        to: &Path,
        left: &mut u64,
        limit: u64,
        skip: &dyn Fn(&Path) -> bool,
    ) -> Result<(), CopyError> {
        std::fs::DirBuilder::new().mode(0o700).create(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            if skip(&source) {
                continue;
            }
            if kind.is_dir() {
                walk(&source, &target, left, limit, skip)?;
            } else if kind.is_file() {
                let flags = (OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY).bits();
                let file = std::fs::OpenOptions::new()
                    .read(true)
                    .custom_flags(flags as i32)
                    .open(&source)?;
                let meta = file.metadata()?;
                if !meta.is_file() {
                    continue;
                }
                let mode = if meta.mode() & 0o100 != 0 {
                    0o700
                } else {
                    0o600
                };
                let out = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .mode(mode)
                    .open(&target)?;
                let mut out = std::io::BufWriter::new(out);
                let mut failed = None;
                let copied = for_each_block(file.take(*left + 1), |block| {
                    if failed.is_none()
                        && let Err(e) = std::io::Write::write_all(&mut out, block)
                    {
                        failed = Some(e);
                    }
                })?;
                if let Some(e) = failed {
                    return Err(e.into());
                }
                if copied > *left {
                    return Err(CopyError::OverBudget(limit));
                }
                *left -= copied;
                std::io::Write::flush(&mut out)?;
            }
        }
        Ok(())
    }
    let mut left = budget;
    walk(from, to, &mut left, budget, skip)
}

fn open_dir(path: &Path) -> rustix::io::Result<OwnedFd> {
    rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

fn read_regular(fd: OwnedFd, limit: u64) -> ReadBack {
    let stat = match rustix::fs::fstat(&fd) {
        Ok(stat) => stat,
        Err(e) => return ReadBack::Refused(format!("it cannot be examined ({e})")),
    };
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::RegularFile {
        return ReadBack::Refused(format!(
            "it is {}, not a regular file: not read",
            kind_name(kind)
        ));
    }
    // A second name for a file elsewhere (a hard link) is not the bot's own output.
    if stat.st_nlink != 1 {
        return ReadBack::Refused(
            "it is a hard link to another file, not a file of its own: not read".into(),
        );
    }
    if stat.st_size as u64 > limit {
        return ReadBack::Refused(format!("it is longer than {}", bytes_text(limit)));
    }
    let mut bytes = Vec::with_capacity(stat.st_size.max(0) as usize);
    let read = std::fs::File::from(fd)
        .take(limit + 1)
        .read_to_end(&mut bytes);
    match read {
        Err(e) => ReadBack::Refused(format!("it cannot be read ({e})")),
        Ok(_) if bytes.len() as u64 > limit => {
            ReadBack::Refused(format!("it is longer than {}", bytes_text(limit)))
        }
        Ok(_) => ReadBack::Bytes(bytes),
    }
}

fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::RegularFile => "a regular file",
        FileType::Directory => "a folder",
        FileType::Symlink => "a symbolic link",
        FileType::Fifo => "a FIFO (named pipe)",
        FileType::Socket => "a socket",
        FileType::CharacterDevice => "a character device",
        FileType::BlockDevice => "a block device",
        FileType::Unknown => "of an unknown kind",
    }
}

fn bytes_text(n: u64) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

/// Makes `dir` a folder only the running user can use (mode 0700, created if missing, its
/// parents too), or refuses one that is not: a folder that another user owns or can write
/// (or a link there) could hold files planted for us to run.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if let Some(parent) = dir.parent()
        && !parent.as_os_str().is_empty()
    {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    trusted_dir(dir)
}

/// The folder `NAME-UID` in the system's temporary folder, where a run keeps what the runs
/// that follow may use (the jail trials' finding, compiled adapter code): made if missing,
/// and `None` unless it is the running user's alone ([`private_dir`]).
pub fn kept_dir(name: &str) -> Option<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("{name}-{}", rustix::process::getuid().as_raw()));
    private_dir(&dir).ok()?;
    Some(dir)
}

/// Writes `bytes` as the file `name` in `dir` whole, then renames it into place: a run
/// reading it never sees half of it.
pub fn write_whole(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut temp = tempfile::NamedTempFile::new_in(dir)?;
    temp.write_all(bytes)?;
    temp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(())
}

/// Whether `dir` is a folder the running user owns and nobody else can write (made 0700
/// if it was readable by others); an error saying why not.
pub fn trusted_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir)?;
    let me = rustix::process::getuid().as_raw();
    let refuse = |why: String| {
        Err(std::io::Error::other(format!(
            "`{}` {why}: files there could have been put by someone else, so none is used; \
             remove it",
            dir.display()
        )))
    };
    if !meta.is_dir() {
        return refuse("is not a folder (a link or a file)".into());
    }
    if meta.uid() != me {
        return refuse(format!(
            "belongs to uid {}, not to us (uid {me})",
            meta.uid()
        ));
    }
    if meta.mode() & 0o022 != 0 {
        return refuse(format!(
            "can be written by others (mode {:o})",
            meta.mode() & 0o777
        ));
    }
    if meta.mode() & 0o077 != 0 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Writes `path` atomically: a temporary file in the same folder, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), crate::error::Error> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, streamed to the file rather than built in
/// memory first.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), crate::error::Error> {
    let io = |source| crate::error::Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
    write(&mut file).map_err(io)?;
    file.into_inner().map_err(|e| io(e.into_error()))?;
    std::fs::rename(&tmp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_regular_file_is_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("out.txt"), "board\n").unwrap();
        assert_eq!(
            read_beneath(dir.path(), Path::new("out.txt"), 100),
            ReadBack::Bytes(b"board\n".to_vec())
        );
        assert_eq!(
            read_beneath(dir.path(), Path::new("none.txt"), 100),
            ReadBack::Missing
        );
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("out.txt");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            FileType::Fifo,
            Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let got = read_beneath(dir.path(), Path::new("out.txt"), 100);
        assert!(
            matches!(&got, ReadBack::Refused(why) if why.contains("FIFO")),
            "{got:?}"
        );
        let err = read_regular_file(&fifo, 100).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
    }

    #[test]
    fn a_symbolic_link_is_not_followed_and_nothing_of_its_target_is_told() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "the secret line\n").unwrap();
        std::os::unix::fs::symlink(&secret, dir.path().join("out.txt")).unwrap();
        let got = read_beneath(dir.path(), Path::new("out.txt"), 100);
        let ReadBack::Refused(why) = got else {
            panic!("{got:?}")
        };
        assert!(why.contains("symbolic link"), "{why}");
        assert!(!why.contains("secret"), "{why}");
        // A link on the way to the file is not followed either.
        let inner = dir.path().join("inner");
        std::fs::create_dir(&inner).unwrap();
        std::fs::write(inner.join("out.txt"), "x").unwrap();
        std::os::unix::fs::symlink(&inner, dir.path().join("via")).unwrap();
        assert!(matches!(
            read_beneath(dir.path(), Path::new("via/out.txt"), 100),
            ReadBack::Refused(_)
        ));
        assert!(matches!(
            read_beneath(dir.path(), Path::new("../out.txt"), 100),
            ReadBack::Refused(_)
        ));
    }

    #[test]
    fn a_hard_link_and_an_overlong_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("other"), "x").unwrap();
        std::fs::hard_link(dir.path().join("other"), dir.path().join("out.txt")).unwrap();
        assert!(matches!(
            read_beneath(dir.path(), Path::new("out.txt"), 100),
            ReadBack::Refused(why) if why.contains("hard link")
        ));
        std::fs::write(dir.path().join("big"), vec![b'x'; 101]).unwrap();
        assert!(matches!(
            read_beneath(dir.path(), Path::new("big"), 100),
            ReadBack::Refused(why) if why.contains("longer than 100 bytes")
        ));
        assert!(read_regular_file(&dir.path().join("big"), 100).is_err());
        assert_eq!(
            read_regular_file(&dir.path().join("big"), 101)
                .unwrap()
                .len(),
            101
        );
    }

    #[test]
    fn a_folder_others_can_write_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("a/cache");
        private_dir(&cache).unwrap();
        let mode = std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = private_dir(&cache).unwrap_err().to_string();
        assert!(err.contains("written by others"), "{err}");
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o755)).unwrap();
        private_dir(&cache).unwrap();
        let mode = std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "made private again");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&cache, &link).unwrap();
        assert!(private_dir(&link).is_err());
    }

    #[test]
    fn a_source_tree_lists_its_links_and_reads_or_walks_none_of_them() {
        let dir = tempfile::tempdir().unwrap();
        let (team, other) = (dir.path().join("team"), dir.path().join("other"));
        for d in [team.join("src/battle"), team.join("lib"), other.join("src")] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(team.join("src/battle/Solver.java"), "own").unwrap();
        std::fs::write(team.join("lib/Kept.java"), "kept").unwrap();
        std::fs::write(other.join("src/Node.java"), "the other team's").unwrap();
        let link = |to: &Path, at: &str| std::os::unix::fs::symlink(to, team.join(at)).unwrap();
        link(&other.join("src/Node.java"), "src/battle/Node.java");
        link(&other.join("src"), "src/theirs");
        link(Path::new("../../lib/Kept.java"), "src/battle/Kept.java");
        link(
            Path::new("../../../other/src/Node.java"),
            "src/battle/Up.java",
        );
        let tree = source_tree(&team.join("src"), 8, &|_| true, &|_| true);
        let files: Vec<_> = tree
            .files
            .iter()
            .map(|(p, b)| (p.clone(), b.as_ref().ok().cloned()))
            .collect();
        assert_eq!(
            files,
            [(team.join("src/battle/Solver.java"), Some(b"own".to_vec()))]
        );
        let names = [
            "src/battle/Kept.java",
            "src/battle/Node.java",
            "src/battle/Up.java",
            "src/theirs",
        ];
        assert_eq!(tree.links, names.map(|n| team.join(n)));
        let leaves: Vec<bool> = tree.links.iter().map(|l| link_leaves(l, &team)).collect();
        assert_eq!(leaves, [false, true, true, true]);
        let err = read_own_source(&team.join("src/battle/Node.java")).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(!err.to_string().contains("other"), "{err}");
    }

    #[test]
    fn a_copy_over_its_budget_says_so_by_its_variant_and_in_the_same_words() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        std::fs::create_dir(&from).unwrap();
        std::fs::write(from.join("big"), vec![b'x'; 4096]).unwrap();
        let over = copy_private_tree(&from, &dir.path().join("small"), 1024, &|_| false);
        assert!(matches!(over, Err(CopyError::OverBudget(1024))), "{over:?}");
        let said = std::io::Error::from(over.unwrap_err()).to_string();
        assert!(said.starts_with("it holds more than"), "{said}");
        copy_private_tree(&from, &dir.path().join("whole"), 8192, &|_| false).unwrap();
        assert_eq!(
            std::fs::read(dir.path().join("whole/big")).unwrap().len(),
            4096
        );
    }
}
