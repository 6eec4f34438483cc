//! A reusable receive buffer: bytes are read at the end, whole frames are
//! consumed from the start, and the unparsed tail moves to the front only
//! when the free room runs low. Its size is fixed per session, so memory is
//! bounded whatever the peer sends.

use std::io::{self, Read};

/// Default size: large enough that one read can deliver many frames.
pub const DEFAULT_CAPACITY: usize = 256 * 1024;
/// Unparsed tails up to this size move to the front before every read.
const SHORT_TAIL: usize = 4096;

pub struct RecvBuf {
    buf: Vec<u8>,
    start: usize,
    end: usize,
}

impl RecvBuf {
    pub fn new(capacity: usize) -> RecvBuf {
        RecvBuf {
            buf: vec![0u8; capacity],
            start: 0,
            end: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    /// Grows the buffer to at least `capacity` bytes, keeping its content.
    pub fn reserve_total(&mut self, capacity: usize) {
        if capacity > self.buf.len() {
            self.buf.resize(capacity, 0);
        }
    }

    /// Bytes received and not yet consumed.
    #[inline(always)]
    pub fn pending(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    #[inline(always)]
    pub fn pending_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.end]
    }

    #[inline(always)]
    pub fn pending_len(&self) -> usize {
        self.end - self.start
    }

    #[inline(always)]
    pub fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.end - self.start);
        self.start += n;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
    }

    /// Makes room for a read: moves the unparsed tail to the front when
    /// it is short (a cheap copy that keeps reads in the same, cache-warm
    /// bytes) or when less than a quarter of the buffer is free behind it.
    /// A caller that keeps every frame below half the capacity always has
    /// room.
    #[inline(always)]
    fn make_room(&mut self) {
        let free = self.buf.len() - self.end;
        let tail = self.end - self.start;
        if self.start > 0 && (tail <= SHORT_TAIL || free < self.buf.len() / 4) {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
    }

    /// One read from `r` into the free room; returns the byte count (0 at
    /// end of stream). Interrupted reads are retried.
    pub fn read_from<R: Read>(&mut self, r: &mut R) -> io::Result<usize> {
        self.make_room();
        if self.end == self.buf.len() {
            return Err(io::Error::other("receive buffer full"));
        }
        loop {
            match r.read(&mut self.buf[self.end..]) {
                Ok(n) => {
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Appends bytes directly (for in-memory drivers and tests).
    pub fn push(&mut self, data: &[u8]) -> usize {
        self.make_room();
        let n = data.len().min(self.buf.len() - self.end);
        self.buf[self.end..self.end + n].copy_from_slice(&data[..n]);
        self.end += n;
        n
    }
}

/// The receive buffer size for frames of up to `max_frame` bytes: at least
/// twice the largest frame, so a partial frame always fits after a move.
pub fn capacity_for(max_frame: usize) -> usize {
    DEFAULT_CAPACITY.max(2 * max_frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_tail_across_moves() {
        let mut b = RecvBuf::new(16);
        assert_eq!(b.push(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]), 14);
        b.consume(12);
        assert_eq!(b.pending(), &[13, 14]);
        assert_eq!(b.push(&[15, 16, 17]), 3);
        assert_eq!(b.pending(), &[13, 14, 15, 16, 17]);
        b.consume(5);
        assert_eq!(b.pending_len(), 0);
        let mut src: &[u8] = &[9, 9, 9];
        assert_eq!(b.read_from(&mut src).unwrap(), 3);
        assert_eq!(b.pending(), &[9, 9, 9]);
    }
}
