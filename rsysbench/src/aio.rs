//! Linux native AIO (io_setup/io_submit/io_getevents), the kernel interface
//! sysbench's `--file-io-mode=async` uses through libaio. The request slots
//! are allocated once per thread and recycled: no allocation per event.

use rbench_common::aio::AioContext;
pub use rbench_common::aio::{IoEvent, Iocb, CMD_PREAD, CMD_PWRITE};

/// One thread's AIO context and its `backlog` request slots.
pub struct Context {
    ctx: AioContext,
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
        Ok(Self {
            ctx: AioContext::new(backlog)?,
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
        let p: *mut Iocb = &mut self.slots[i];
        // SAFETY: one valid iocb pointer; the slot stays put until reaped.
        match unsafe { self.ctx.submit(&mut [p]) } {
            Ok(0) | Err(_) => {
                self.free.push(i);
                return Err(std::io::Error::last_os_error());
            }
            Ok(_) => {}
        }
        self.in_flight += 1;
        Ok(())
    }

    /// Wait for at least `min` completions; returns how many are in
    /// `self.events[..n]`, their slots already freed.
    #[inline]
    pub fn reap(&mut self, min: usize) -> std::io::Result<usize> {
        let n = self.ctx.getevents(min, &mut self.events)?;
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
