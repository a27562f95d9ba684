//! A plain pthread mutex (PTHREAD_MUTEX_NORMAL, no spinning), so the
//! threads and mutex tests lock exactly what sysbench 1.0.20 locks; std's
//! Mutex spins before sleeping and would change contended throughput.

use std::cell::UnsafeCell;

pub struct PthreadMutex(UnsafeCell<libc::pthread_mutex_t>);

// SAFETY: pthread mutexes are made to be shared between threads; the cell
// is only touched through pthread calls.
unsafe impl Sync for PthreadMutex {}
unsafe impl Send for PthreadMutex {}

impl PthreadMutex {
    pub fn new() -> Self {
        Self(UnsafeCell::new(libc::PTHREAD_MUTEX_INITIALIZER))
    }

    #[inline(always)]
    pub fn lock(&self) {
        // SAFETY: an initialised mutex that is never moved while shared
        // (it lives in a Vec that is not resized during the run).
        unsafe { libc::pthread_mutex_lock(self.0.get()) };
    }

    #[inline(always)]
    pub fn unlock(&self) {
        // SAFETY: called by the thread that locked it.
        unsafe { libc::pthread_mutex_unlock(self.0.get()) };
    }
}

impl Drop for PthreadMutex {
    fn drop(&mut self) {
        // SAFETY: no thread holds or waits on it any more.
        unsafe { libc::pthread_mutex_destroy(self.0.get()) };
    }
}
