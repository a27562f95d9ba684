//! The passthrough engines, `sg` (SCSI generic) and `io_uring_cmd` (NVMe
//! generic character devices). rfio checks their files as fio does before
//! anything is laid out and refuses, with fio's lines, a file that is not
//! such a device. Commands to a real device are not implemented (README):
//! such a file is refused too, saying so.

use super::Config;
use std::os::unix::fs::FileTypeExt;

/// SG_GET_VERSION_NUM.
const SG_GET_VERSION_NUM: libc::c_ulong = 0x2282;
/// NVME_IOCTL_ID: _IO('N', 0x40).
const NVME_IOCTL_ID: libc::c_ulong = 0x4E40;

/// A refused job: what goes to stderr, and the job's error.
#[derive(Debug)]
pub struct Refusal {
    pub stderr: String,
    pub errno: i32,
}

pub fn refuse(cfg: &Config) -> Option<Refusal> {
    let check = match cfg.engine {
        "sg" => sg,
        "io_uring_cmd" => nvme,
        _ => return None,
    };
    cfg.filenames.iter().find_map(|p| check(p))
}

/// The ioctl `req` on `p` (opened read-only) succeeds.
fn answers(p: &std::path::Path, req: libc::c_ulong) -> bool {
    let Ok(f) = std::fs::File::open(p) else {
        return false;
    };
    let mut v: libc::c_int = 0;
    // SAFETY: a query ioctl on our own descriptor into a local int.
    unsafe { libc::ioctl(std::os::fd::AsRawFd::as_raw_fd(&f), req, &mut v) >= 0 }
}

fn not_implemented(engine: &str, p: &std::path::Path) -> Refusal {
    Refusal {
        stderr: format!(
            "rfio: ioengine {engine}: passthrough commands to {} are not implemented\n",
            p.display()
        ),
        errno: libc::ENOSYS,
    }
}

fn sg(p: &std::path::Path) -> Option<Refusal> {
    let t = std::fs::metadata(p).ok().map(|m| m.file_type());
    if !t.is_some_and(|t| t.is_block_device() || t.is_char_device()) {
        let site = "file:engines/sg.c:1399, func=wrong file type, error=Invalid argument";
        return Some(Refusal {
            stderr: format!(
                "ioengine sg only works on block or character devices\n{site}\nfio: pid=0, err=22/{site}\n"
            ),
            errno: libc::EINVAL,
        });
    }
    if !answers(p, SG_GET_VERSION_NUM) {
        return Some(Refusal {
            stderr: "ioengine sg unable to successfully execute read capacity to get block size and maximum lba\n\
                     file:engines/sg.c:1406, func=fio_sgio_read_capacity, error=Success\n"
                .into(),
            errno: 0,
        });
    }
    Some(not_implemented("sg", p))
}

fn nvme(p: &std::path::Path) -> Option<Refusal> {
    let t = std::fs::metadata(p).ok().map(|m| m.file_type());
    if !t.is_some_and(|t| t.is_char_device()) {
        return Some(Refusal {
            stderr: "ioengine io_uring_cmd only works with nvme ns generic char devices (/dev/ngXnY)\n\n"
                .into(),
            errno: 0,
        });
    }
    if !answers(p, NVME_IOCTL_ID) {
        return Some(Refusal {
            stderr: "failed to fetch namespace-id".into(),
            errno: libc::ENOTTY,
        });
    }
    Some(not_implemented("io_uring_cmd", p))
}
