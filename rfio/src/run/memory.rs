//! Where a job's I/O buffers live and what memory it holds locked: fio's
//! `mem=`/`iomem=` (malloc, shm, shmhuge, mmap, mmapshared, mmaphuge, with
//! `mmap:FILE` / `mmaphuge:FILE`), `iomem_align=` and `lockmem=`. All of it
//! happens once before the job loop.

use crate::job::Job;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::path::PathBuf;

/// How the buffers are allocated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backing {
    Malloc,
    Shm {
        huge: bool,
    },
    Mmap {
        huge: bool,
        shared: bool,
        file: Option<PathBuf>,
    },
}

impl Backing {
    /// The job's `mem=` (default malloc).
    pub fn of(job: &Job) -> Backing {
        let (word, file) = job.opts.choice("mem");
        let file = file.filter(|f| !f.is_empty()).map(PathBuf::from);
        match word.as_str() {
            "shm" => Backing::Shm { huge: false },
            "shmhuge" => Backing::Shm { huge: true },
            "mmap" => Backing::Mmap {
                huge: false,
                shared: false,
                file,
            },
            "mmapshared" => Backing::Mmap {
                huge: false,
                shared: true,
                file,
            },
            "mmaphuge" => Backing::Mmap {
                huge: true,
                shared: false,
                file,
            },
            _ => Backing::Malloc,
        }
    }
}

/// Why the buffers could not be had: errno, fio's failing call, and the
/// lines fio prints first.
#[derive(Debug)]
pub struct AllocError {
    pub errno: i32,
    pub func: &'static str,
    pub note: String,
}

impl AllocError {
    /// fio's source line for the failing call (memory.c).
    pub fn site(&self) -> &'static str {
        match self.func {
            "shmget" => "memory.c:78",
            "shmat" => "memory.c:101",
            "open mmap file" => "memory.c:146",
            "truncate mmap file" => "memory.c:153",
            "mmap" => "memory.c:170",
            _ => "memory.c:332",
        }
    }

    fn last(func: &'static str, note: &str) -> AllocError {
        AllocError {
            errno: std::io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::ENOMEM),
            func,
            note: note.to_string(),
        }
    }
}

/// One allocation of `len` bytes, page aligned, zeroed.
pub struct Region {
    pub base: *mut u8,
    len: usize,
    kind: Kind,
}

enum Kind {
    Heap(Layout),
    Shm,
    /// The backing file this mapping made, removed with it.
    Mmap(Option<PathBuf>),
}

// SAFETY: the region is plain memory owned by one job.
unsafe impl Send for Region {}

/// Allocate `len` bytes the way `backing` says.
pub fn alloc(backing: &Backing, len: usize, huge_page: usize) -> Result<Region, AllocError> {
    let len = len.max(4096);
    match backing {
        Backing::Malloc => {
            let layout = Layout::from_size_align(len, 4096).map_err(|_| AllocError {
                errno: libc::ENOMEM,
                func: "iomem allocation",
                note: String::new(),
            })?;
            // SAFETY: non-zero size, valid layout.
            let base = unsafe { alloc_zeroed(layout) };
            if base.is_null() {
                return Err(AllocError {
                    errno: libc::ENOMEM,
                    func: "iomem allocation",
                    note: String::new(),
                });
            }
            Ok(Region {
                base,
                len,
                kind: Kind::Heap(layout),
            })
        }
        Backing::Shm { huge } => alloc_shm(*huge, len, huge_page),
        Backing::Mmap { huge, shared, file } => {
            alloc_mmap(*huge, *shared, file.as_deref(), len, huge_page)
        }
    }
}

/// fio's default hugepage-size, 2 MiB.
const HUGE: usize = 2 << 20;

/// hugepage-size: what the huge backings round their size up to.
pub fn huge_page(job: &Job) -> usize {
    match job.opts.int("hugepage-size") {
        n if n > 0 => n as usize,
        _ => HUGE,
    }
}

fn alloc_shm(huge: bool, len: usize, huge_page: usize) -> Result<Region, AllocError> {
    let mut flags = libc::IPC_CREAT | 0o600;
    let mut len = len;
    if huge {
        flags |= libc::SHM_HUGETLB;
        len = len.next_multiple_of(huge_page.max(1));
    }
    // SAFETY: a private segment of our own.
    let id = unsafe { libc::shmget(libc::IPC_PRIVATE, len, flags) };
    if id < 0 {
        let errno = std::io::Error::last_os_error().raw_os_error().unwrap_or(0);
        let note = match errno {
            libc::EPERM => "fio: you may need to run this job as root\n",
            libc::EINVAL if huge => {
                "fio: check that you have free huge pages and that hugepage-size is correct.\n"
            }
            libc::ENOSYS if huge => "fio: your system does not appear to support huge pages.\n",
            libc::ENOMEM if huge => {
                "fio: no huge pages available, do you need to allocate some? See HOWTO.\n"
            }
            _ => "",
        };
        return Err(AllocError::last("shmget", note));
    }
    // SAFETY: attaching the segment just made; removed at once so that it
    // goes away with the last detach.
    let base = unsafe { libc::shmat(id, std::ptr::null(), 0) };
    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
    if base as isize == -1 {
        return Err(AllocError::last("shmat", ""));
    }
    Ok(Region {
        base: base.cast(),
        len,
        kind: Kind::Shm,
    })
}

fn alloc_mmap(
    huge: bool,
    shared: bool,
    file: Option<&std::path::Path>,
    len: usize,
    huge_page: usize,
) -> Result<Region, AllocError> {
    let mut len = len;
    let mut flags = 0;
    if huge {
        len = len.next_multiple_of(huge_page.max(1));
        if file.is_none() {
            flags |= libc::MAP_HUGETLB;
        }
    }
    // With a file, fio maps it shared for mmaphuge/mmapshared and private
    // for mmap; without one, anonymous private memory for all three.
    let (fd, keep) = match file {
        Some(p) => {
            flags |= if huge || shared {
                libc::MAP_SHARED
            } else {
                libc::MAP_PRIVATE
            };
            open_backing_file(p, len)?
        }
        None => {
            flags |= libc::MAP_ANONYMOUS | libc::MAP_PRIVATE;
            (-1, true)
        }
    };
    // SAFETY: a fresh mapping of `len` bytes (of our file or anonymous).
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            flags,
            fd,
            0,
        )
    };
    let err = AllocError::last("mmap", "");
    if fd >= 0 {
        // SAFETY: the mapping keeps what it needs of the file.
        unsafe { libc::close(fd) };
    }
    let made = file.filter(|_| !keep).map(|p| p.to_path_buf());
    if base == libc::MAP_FAILED {
        if let Some(p) = made {
            let _ = std::fs::remove_file(p);
        }
        return Err(err);
    }
    Ok(Region {
        base: base.cast(),
        len,
        kind: Kind::Mmap(made),
    })
}

/// `mmap:FILE`: the file the buffers map (mode 0644), made long enough
/// for them (never shortened); whether it existed before (fio keeps such
/// a file, and removes one it made).
fn open_backing_file(p: &std::path::Path, len: usize) -> Result<(i32, bool), AllocError> {
    use std::os::fd::IntoRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let existed = p.exists();
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .open(p)
        .map_err(|e| AllocError {
            errno: e.raw_os_error().unwrap_or(libc::EIO),
            func: "open mmap file",
            note: String::new(),
        })?;
    if f.metadata().map_or(0, |m| m.len()) < len as u64 {
        f.set_len(len as u64).map_err(|e| AllocError {
            errno: e.raw_os_error().unwrap_or(libc::EIO),
            func: "truncate mmap file",
            note: String::new(),
        })?;
    }
    Ok((f.into_raw_fd(), existed))
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: releasing what `alloc` made, the way it was made.
        unsafe {
            match self.kind {
                Kind::Heap(layout) => dealloc(self.base, layout),
                Kind::Shm => {
                    libc::shmdt(self.base.cast());
                }
                Kind::Mmap(ref made) => {
                    libc::munmap(self.base.cast(), self.len);
                    if let Some(p) = made {
                        let _ = std::fs::remove_file(p);
                    }
                }
            }
        }
    }
}

/// `lockmem=`: memory mapped and locked for the job's life, at most all
/// but 128 MiB of the machine's (fio's limit and notice).
pub struct Pinned {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: plain memory owned by one job.
unsafe impl Send for Pinned {}

/// Lock `lockmem` bytes; the notice fio prints when it lowers the amount
/// goes to `notice`. Errors are fio's perror lines.
pub fn pin(job: &Job, notice: &mut String) -> Result<Option<Pinned>, String> {
    let Some(rbench_common::units::fio::SizeOrPercent::Bytes(mut len)) = job.opts.size("lockmem")
    else {
        return Ok(None);
    };
    if len == 0 {
        return Ok(None);
    }
    let phys = phys_mem();
    if phys > 0 && len + (128 << 20) > phys {
        len = phys.saturating_sub(128 << 20);
        notice.push_str(&format!(
            "fio: limiting mlocked memory to {}MiB\n",
            len >> 20
        ));
    }
    let len = len as usize;
    // SAFETY: a fresh anonymous mapping, locked below.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(format!(
            "malloc locked mem: {}\n",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: locking the mapping just made.
    if unsafe { libc::mlock(ptr, len) } < 0 {
        let e = std::io::Error::last_os_error();
        // SAFETY: unmapping it again.
        unsafe { libc::munmap(ptr, len) };
        return Err(format!("mlock: {e}\n"));
    }
    Ok(Some(Pinned { ptr, len }))
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: releasing the mapping `pin` made.
        unsafe {
            libc::munlock(self.ptr, self.len);
            libc::munmap(self.ptr, self.len);
        }
    }
}

fn phys_mem() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    if pages > 0 && size > 0 {
        pages as u64 * size as u64
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_backing_gives_zeroed_writable_memory() {
        for b in [
            Backing::Malloc,
            Backing::Shm { huge: false },
            Backing::Mmap {
                huge: false,
                shared: false,
                file: None,
            },
            Backing::Mmap {
                huge: false,
                shared: true,
                file: None,
            },
        ] {
            let r = alloc(&b, 8192, HUGE).unwrap_or_else(|e| panic!("{b:?}: {e:?}"));
            // SAFETY: the region holds 8192 bytes.
            let s = unsafe { std::slice::from_raw_parts_mut(r.base, 8192) };
            assert!(s.iter().all(|&x| x == 0), "{b:?} not zeroed");
            s[8191] = 7;
            assert_eq!(s[8191], 7);
        }
    }

    #[test]
    fn mmap_file_backing_creates_and_sizes_the_file() {
        let dir = std::env::temp_dir().join(format!("rfio-mem-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("buf");
        let b = Backing::Mmap {
            huge: false,
            shared: true,
            file: Some(p.clone()),
        };
        let r = alloc(&b, 10000, HUGE).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 10000);
        drop(r);
        assert!(!p.exists(), "a backing file the job made goes with it");
        std::fs::write(&p, vec![1u8; 20000]).unwrap();
        drop(alloc(&b, 10000, HUGE).unwrap());
        assert_eq!(
            std::fs::read(&p).unwrap().len(),
            20000,
            "an existing file is kept whole"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
