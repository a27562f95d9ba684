//! Linux native AIO (io_setup/io_submit/io_getevents), the kernel interface
//! sysbench's `--file-io-mode=async` uses through libaio. The request slots
//! are allocated once per thread and recycled: no allocation per event.

/// `struct iocb` from <linux/aio_abi.h> (x86_64/aarch64 little endian).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Iocb {
    pub data: u64,
    pub key: u32,
    pub rw_flags: u32,
    pub opcode: u16,
    pub reqprio: i16,
    pub fildes: u32,
    pub buf: u64,
    pub nbytes: u64,
    pub offset: i64,
    pub reserved2: u64,
    pub flags: u32,
    pub resfd: u32,
}

/// `struct io_event`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct IoEvent {
    pub data: u64,
    pub obj: u64,
    pub res: i64,
    pub res2: i64,
}

pub const CMD_PREAD: u16 = 0;
pub const CMD_PWRITE: u16 = 1;

/// One thread's AIO context and its `backlog` request slots.
pub struct Context {
    ctx: libc::c_ulong,
    pub slots: Vec<Iocb>,
    /// Free slot indexes.
    free: Vec<usize>,
    pub events: Vec<IoEvent>,
    /// Requests submitted and not yet reaped.
    pub in_flight: usize,
}

// SAFETY: a context is used by one thread at a time (moved to its worker).
unsafe impl Send for Context {}

impl Context {
    pub fn new(backlog: usize) -> std::io::Result<Self> {
        let mut ctx: libc::c_ulong = 0;
        // SAFETY: io_setup writes the context id into `ctx`.
        let rc = unsafe { libc::syscall(libc::SYS_io_setup, backlog as libc::c_long, &mut ctx) };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Self {
            ctx,
            slots: vec![Iocb::default(); backlog],
            free: (0..backlog).rev().collect(),
            events: vec![IoEvent::default(); backlog],
            in_flight: 0,
        })
    }

    /// Submit one request; `false` with errno set when io_submit failed.
    #[inline]
    pub fn submit(&mut self, mut cb: Iocb) -> std::io::Result<()> {
        let Some(i) = self.free.pop() else {
            return Err(std::io::Error::from_raw_os_error(libc::EAGAIN));
        };
        cb.data = i as u64;
        self.slots[i] = cb;
        let mut p: *mut Iocb = &mut self.slots[i];
        // SAFETY: one valid iocb pointer; the slot stays put until reaped.
        let rc = unsafe { libc::syscall(libc::SYS_io_submit, self.ctx, 1 as libc::c_long, &mut p) };
        if rc < 1 {
            self.free.push(i);
            return Err(std::io::Error::last_os_error());
        }
        self.in_flight += 1;
        Ok(())
    }

    /// Wait for at least `min` completions; returns how many are in
    /// `self.events[..n]`, their slots already freed.
    #[inline]
    pub fn reap(&mut self, min: usize) -> std::io::Result<usize> {
        let max = self.events.len();
        // SAFETY: `events` has room for `max` io_events; no timeout.
        let n = unsafe {
            libc::syscall(
                libc::SYS_io_getevents,
                self.ctx,
                min as libc::c_long,
                max as libc::c_long,
                self.events.as_mut_ptr(),
                std::ptr::null_mut::<libc::timespec>(),
            )
        };
        if n < 0 {
            return Err(std::io::Error::last_os_error());
        }
        let n = n as usize;
        for e in &self.events[..n] {
            self.free.push(e.data as usize);
        }
        self.in_flight -= n.min(self.in_flight);
        Ok(n)
    }

    /// The slot a completion belongs to.
    pub fn request(&self, e: &IoEvent) -> &Iocb {
        &self.slots[e.data as usize]
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: destroying the context created in `new` (this also
        // cancels or waits for what is still in flight).
        unsafe { libc::syscall(libc::SYS_io_destroy, self.ctx) };
    }
}
