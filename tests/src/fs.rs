//! Scratch directories and file systems mounted for one test: fresh temporary
//! directories (kept, or removed on drop), a tmpfs/ramfs mount, a bare loop
//! device and an ext4 file system on a loop device, each undone on drop,
//! also when the test fails.

use std::collections::HashSet;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use crate::run_bounded;

/// A fresh, empty directory `<tmp>/<prefix>-<pid>-<n>-<tag>` (n counts up
/// within the process), left in place for the caller to compare or remove.
///
/// The first call for a `prefix` in a process removes the directories of
/// that prefix left behind by earlier runs whose process is gone, so kept
/// directories do not pile up.
pub fn temp_dir(prefix: &str, tag: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    static SWEPT: Mutex<Option<HashSet<String>>> = Mutex::new(None);
    let first = SWEPT
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(HashSet::new)
        .insert(prefix.to_string());
    if first {
        sweep_stale(prefix);
    }
    let d = std::env::temp_dir().join(format!(
        "{prefix}-{}-{}-{tag}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}

/// Remove `<tmp>/<prefix>-<pid>-...` whose process `pid` no longer runs.
fn sweep_stale(prefix: &str) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    let head = format!("{prefix}-");
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let pid = name
            .strip_prefix(&head)
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// A fresh directory from [`temp_dir`], removed with its contents on drop
/// (also when a test fails). Derefs to its path.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(prefix: &str, tag: &str) -> TempDir {
        TempDir(temp_dir(prefix, tag))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

/// Take over a directory (one from [`temp_dir`], say) to remove on drop.
impl From<PathBuf> for TempDir {
    fn from(dir: PathBuf) -> TempDir {
        TempDir(dir)
    }
}

impl Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The names of the entries of `dir`, sorted.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Say why a test that needs root (mounts, loop devices) cannot run here
/// and let it skip; under CI (`CI` set), which runs as root, fail instead.
pub fn cannot(why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("CI runs as root and must be able to do this: {why}");
    }
    eprintln!("note: skipping this test (not root?): {why}");
}

/// What a failed command said, for [`cannot`].
fn failure(out: std::io::Result<std::process::Output>) -> String {
    match out {
        Ok(o) => String::from_utf8_lossy(&o.stderr).into_owned(),
        Err(e) => e.to_string(),
    }
}

/// Unmount `dir`; when it is busy (a child still running), detach it now
/// and let it go when idle.
fn unmount(dir: &Path) {
    let ok = Command::new("umount")
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        let _ = Command::new("umount").arg("-l").arg(dir).status();
    }
}

/// A file system mounted for one test (tmpfs or ramfs) on
/// `<tmp>/rbench-mount-<pid>-<name>`; unmounted and its mount point removed
/// on drop.
pub struct Mount {
    pub dir: PathBuf,
}

impl Mount {
    /// Mount a file system of type `fstype` (tmpfs, ramfs) with `opts`;
    /// `None`, after [`cannot`] said why, when this user cannot mount.
    pub fn new(name: &str, fstype: &str, opts: &str) -> Option<Mount> {
        let dir = std::env::temp_dir().join(format!("rbench-mount-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mount point");
        let out = Command::new("mount")
            .args(["-t", fstype, "-o", opts, fstype])
            .arg(&dir)
            .output();
        match out {
            Ok(o) if o.status.success() => Some(Mount { dir }),
            other => {
                let _ = std::fs::remove_dir(&dir);
                cannot(&failure(other));
                None
            }
        }
    }

    /// A tmpfs of `size` (mount's syntax, `2m`), open to everyone.
    pub fn tmpfs(name: &str, size: &str) -> Option<Mount> {
        Mount::new(name, "tmpfs", &format!("size={size},mode=0777"))
    }

    /// A fresh directory inside the mount.
    pub fn sub(&self, name: &str) -> PathBuf {
        let d = self.dir.join(name);
        std::fs::create_dir_all(&d).expect("subdir");
        d
    }

    /// A fresh directory inside the mount, open to everyone (mode 0777).
    pub fn open_sub(&self, name: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let d = self.sub(name);
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        d
    }

    /// Remount with `opt` (`ro`, `rw`, ...); fails the test when refused.
    pub fn remount(&self, opt: &str) {
        let ok = Command::new("mount")
            .args(["-o", &format!("remount,{opt}")])
            .arg(&self.dir)
            .status()
            .expect("mount")
            .success();
        assert!(ok, "remount {opt}");
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        unmount(&self.dir);
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// A loop device over a sparse image of its own,
/// `<tmp>/rbench-loopdev-<pid>-<name>.img` (discard punches holes in it, so
/// trimmed blocks read back as zeros); detached and the image removed on
/// drop, also when the test fails.
pub struct LoopDev {
    image: PathBuf,
    /// The device, `/dev/loopN`.
    pub dev: String,
}

impl LoopDev {
    /// A device of `size` bytes, with `sector`-byte logical sectors when
    /// given (losetup's default otherwise), set up within `limit`; `None`,
    /// after [`cannot`] said why, when this user cannot set one up.
    pub fn new(name: &str, size: u64, sector: Option<u32>, limit: Duration) -> Option<LoopDev> {
        let image =
            std::env::temp_dir().join(format!("rbench-loopdev-{}-{name}.img", std::process::id()));
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(size))
            .expect("image");
        let mut cmd = Command::new("losetup");
        cmd.args(["-f", "--show"]);
        if let Some(sector) = sector {
            cmd.args(["--sector-size", &sector.to_string()]);
        }
        let out = run_bounded(cmd.arg(&image), limit);
        if !out.status.success() {
            let _ = std::fs::remove_file(&image);
            cannot(&String::from_utf8_lossy(&out.stderr));
            return None;
        }
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Some(LoopDev { image, dev })
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
        let _ = std::fs::remove_file(&self.image);
    }
}

/// A loop device over a sparse 64 MiB image `<tmp>/rbench-loop-<pid>-<name>.img`
/// with an ext4 file system mounted read-only on `...<name>.mnt`; all of it
/// undone on drop (unmount, detach, remove).
pub struct LoopFs {
    image: PathBuf,
    dev: Option<String>,
    pub mnt: PathBuf,
    mounted: bool,
}

impl LoopFs {
    /// Make it, each step bounded by `limit`; `None`, after [`cannot`] said
    /// why, when this user cannot set up a loop device.
    pub fn new(name: &str, limit: Duration) -> Option<LoopFs> {
        let base = std::env::temp_dir().join(format!("rbench-loop-{}-{name}", std::process::id()));
        let mut fs = LoopFs {
            image: base.with_extension("img"),
            dev: None,
            mnt: base.with_extension("mnt"),
            mounted: false,
        };
        let image = std::fs::File::create(&fs.image).expect("image");
        image.set_len(64 << 20).expect("sparse image");
        drop(image);
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&fs.image)
            .output();
        match out {
            Ok(o) if o.status.success() => {
                fs.dev = Some(String::from_utf8_lossy(&o.stdout).trim().to_string());
            }
            other => {
                cannot(&failure(other));
                return None;
            }
        }
        let dev = fs.dev.clone().expect("device");
        let mkfs = run_bounded(
            Command::new("mkfs.ext4").args([
                "-q",
                "-F",
                // No lazy init thread writing to the device after the mount.
                "-E",
                "lazy_itable_init=0,lazy_journal_init=0",
                &dev,
            ]),
            limit,
        );
        assert!(mkfs.status.success(), "mkfs.ext4 {dev}");
        std::fs::create_dir_all(&fs.mnt).expect("mount point");
        // Read-only, so that nothing but a tool under test could change the
        // device (a read-write ext4 writes its journal for a while).
        let ok = run_bounded(
            Command::new("mount")
                .args(["-o", "ro"])
                .arg(&dev)
                .arg(&fs.mnt),
            limit,
        )
        .status
        .success();
        assert!(ok, "mount {dev}");
        fs.mounted = true;
        Some(fs)
    }

    /// The loop device, `/dev/loopN`.
    pub fn dev(&self) -> &str {
        self.dev.as_deref().expect("device")
    }
}

impl Drop for LoopFs {
    fn drop(&mut self) {
        if self.mounted {
            unmount(&self.mnt);
        }
        let _ = std::fs::remove_dir(&self.mnt);
        if let Some(dev) = &self.dev {
            let _ = Command::new("losetup").args(["-d", dev]).status();
        }
        let _ = std::fs::remove_file(&self.image);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_dirs_are_fresh_and_a_temp_dir_guard_removes_its_own() {
        let a = temp_dir("rbench-fs-unit", "a");
        let b = temp_dir("rbench-fs-unit", "a");
        assert_ne!(a, b);
        assert!(a.is_dir() && std::fs::read_dir(&a).expect("read").next().is_none());
        let kept = TempDir::new("rbench-fs-unit", "guard");
        std::fs::write(kept.join("f"), "x").expect("write");
        let path = kept.path().to_path_buf();
        drop(kept);
        assert!(!path.exists());
        for d in [a, b] {
            std::fs::remove_dir_all(d).expect("remove");
        }
    }
}
