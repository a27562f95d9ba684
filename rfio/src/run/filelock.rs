//! `lockfile=none|exclusive|readwrite` (fio 3.33's file locks, filesetup.c
//! lock_file/unlock_file as read): one lock per file name, shared by every
//! job and clone of the run that uses the file, taken as an I/O is handed
//! to the engine and given back once the engine took it (fio's td_io_prep
//! to td_io_queue; for a synchronous engine that is the whole I/O).
//! `exclusive` lets one I/O at a time at the file; `readwrite` lets reads
//! share it and gives a write (or trim, or sync) the file alone. A
//! `:N` batch suffix is read and, as by fio 3.33, not used. With
//! `lockfile=none` the job holds no locks at all (one predictable branch).

pub use crate::job::lockfile::Mode;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard, Weak};

/// The locks of one file (each job uses the one its mode names).
#[derive(Debug, Default)]
pub struct FileLock {
    exclusive: Mutex<()>,
    shared: RwLock<()>,
}

/// The locks of the files in use, by file name.
static LOCKS: Mutex<Vec<(PathBuf, Weak<FileLock>)>> = Mutex::new(Vec::new());

fn lock_for(path: &Path) -> Arc<FileLock> {
    let mut locks = LOCKS.lock().unwrap_or_else(|p| p.into_inner());
    locks.retain(|(_, w)| w.strong_count() > 0);
    if let Some(l) = locks
        .iter()
        .find(|(p, _)| p == path)
        .and_then(|(_, w)| w.upgrade())
    {
        return l;
    }
    let l = Arc::new(FileLock::default());
    locks.push((path.to_path_buf(), Arc::downgrade(&l)));
    l
}

/// A job's locks, one per file (by the job's file index).
#[derive(Debug)]
pub struct FileLocks {
    mode: Mode,
    files: Vec<Arc<FileLock>>,
}

/// A lock held around one I/O's submission.
pub enum Held<'a> {
    Exclusive(#[allow(dead_code)] MutexGuard<'a, ()>),
    Read(#[allow(dead_code)] RwLockReadGuard<'a, ()>),
    Write(#[allow(dead_code)] RwLockWriteGuard<'a, ()>),
    Nothing,
}

impl FileLocks {
    /// None with lockfile=none (or no file): nothing to take per I/O.
    pub fn for_job(mode: Mode, paths: &[PathBuf]) -> Option<FileLocks> {
        if mode == Mode::None || paths.is_empty() {
            return None;
        }
        Some(FileLocks {
            mode,
            files: paths.iter().map(|p| lock_for(p)).collect(),
        })
    }

    /// Take file `file`'s lock for an I/O (`read`: a read); blocks while
    /// another job holds it as the mode says. No allocation.
    #[inline]
    pub fn take(&self, file: usize, read: bool) -> Held<'_> {
        let Some(l) = self.files.get(file) else {
            return Held::Nothing;
        };
        match (self.mode, read) {
            (Mode::Exclusive, _) => {
                Held::Exclusive(l.exclusive.lock().unwrap_or_else(|p| p.into_inner()))
            }
            (Mode::ReadWrite, true) => {
                Held::Read(l.shared.read().unwrap_or_else(|p| p.into_inner()))
            }
            (Mode::ReadWrite, false) => {
                Held::Write(l.shared.write().unwrap_or_else(|p| p.into_inner()))
            }
            (Mode::None, _) => Held::Nothing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_lock_per_file_name() {
        let a = FileLocks::for_job(Mode::Exclusive, &[PathBuf::from("/x/a")]).unwrap();
        let b =
            FileLocks::for_job(Mode::Exclusive, &[PathBuf::from("/x/a"), "/x/b".into()]).unwrap();
        assert!(Arc::ptr_eq(&a.files[0], &b.files[0]));
        assert!(!Arc::ptr_eq(&b.files[0], &b.files[1]));
        assert!(FileLocks::for_job(Mode::None, &[PathBuf::from("/x/a")]).is_none());
        // Exclusive: a second taker waits; readwrite: readers share.
        let held = a.take(0, true);
        assert!(b.files[0].exclusive.try_lock().is_err());
        drop(held);
        assert!(b.files[0].exclusive.try_lock().is_ok());
        let rw = FileLocks::for_job(Mode::ReadWrite, &[PathBuf::from("/x/c")]).unwrap();
        let r1 = rw.take(0, true);
        assert!(rw.files[0].shared.try_read().is_ok());
        assert!(rw.files[0].shared.try_write().is_err());
        drop(r1);
        assert!(rw.files[0].shared.try_write().is_ok());
    }
}
