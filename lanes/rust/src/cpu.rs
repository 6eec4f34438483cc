//! The process's own CPU time, as SPEC.md section 7 wants it for the
//! measured window: `getrusage(RUSAGE_SELF)` in microseconds. The standard
//! library has no binding for it, so the call is declared here; elsewhere
//! than on Unix the figures are not reported.

/// User and system CPU time of the whole process, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub user_us: u64,
    pub system_us: u64,
}

impl CpuTimes {
    /// The process's CPU time so far; None where it cannot be read.
    pub fn now() -> Option<CpuTimes> {
        sys::now()
    }

    /// The CPU time from `start` to `self`.
    pub fn since(self, start: CpuTimes) -> CpuTimes {
        CpuTimes {
            user_us: self.user_us.saturating_sub(start.user_us),
            system_us: self.system_us.saturating_sub(start.system_us),
        }
    }

    /// The CPU used over a window, from its two readings (either may have
    /// failed). An empty window (no measured round trip) is 0 by
    /// definition, whatever the clock granularity says.
    pub fn window(start: Option<CpuTimes>, end: Option<CpuTimes>, empty: bool) -> Option<CpuTimes> {
        match (start, end) {
            (Some(_), Some(_)) if empty => Some(CpuTimes::default()),
            (Some(s), Some(e)) => Some(e.since(s)),
            _ => None,
        }
    }

    /// `"cpu_user_us":U,"cpu_system_us":S,` for a result line, or nothing
    /// when not reported.
    pub fn json_fields(cpu: Option<CpuTimes>) -> String {
        match cpu {
            Some(c) => format!(
                "\"cpu_user_us\":{},\"cpu_system_us\":{},",
                c.user_us, c.system_us
            ),
            None => String::new(),
        }
    }
}

#[cfg(unix)]
mod sys {
    use super::CpuTimes;
    use std::os::raw::{c_int, c_long};

    // suseconds_t: an int on Apple systems, a long elsewhere.
    #[cfg(any(target_os = "macos", target_os = "ios"))]
    type Suseconds = i32;
    #[cfg(not(any(target_os = "macos", target_os = "ios")))]
    type Suseconds = c_long;

    #[repr(C)]
    struct Timeval {
        tv_sec: c_long,
        tv_usec: Suseconds,
    }

    /// POSIX's `struct rusage`: the two times, then 14 longs (with room to
    /// spare, in case a system has more).
    #[repr(C)]
    struct Rusage {
        ru_utime: Timeval,
        ru_stime: Timeval,
        rest: [c_long; 32],
    }

    const RUSAGE_SELF: c_int = 0;

    extern "C" {
        fn getrusage(who: c_int, usage: *mut Rusage) -> c_int;
    }

    fn micros(t: &Timeval) -> u64 {
        (t.tv_sec as u64)
            .wrapping_mul(1_000_000)
            .wrapping_add(t.tv_usec as u64)
    }

    pub fn now() -> Option<CpuTimes> {
        let mut ru = Rusage {
            ru_utime: Timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            ru_stime: Timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            rest: [0; 32],
        };
        // SAFETY: `ru` is a writable struct at least as large as the
        // system's `struct rusage`, with the same layout for the fields read.
        if unsafe { getrusage(RUSAGE_SELF, &mut ru) } != 0 {
            return None;
        }
        Some(CpuTimes {
            user_us: micros(&ru.ru_utime),
            system_us: micros(&ru.ru_stime),
        })
    }
}

#[cfg(not(unix))]
mod sys {
    pub fn now() -> Option<super::CpuTimes> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Busy work shows up as CPU time, and no more of it than the wall
    /// time this one thread spun (however little of it a loaded machine
    /// gave it).
    #[cfg(unix)]
    #[test]
    fn busy_time_counts() {
        use std::time::{Duration, Instant};
        let start = CpuTimes::now().expect("getrusage");
        let t = Instant::now();
        let mut x = 1u64;
        let used = loop {
            for _ in 0..10_000 {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
            let used = CpuTimes::now().unwrap().since(start);
            if used.user_us + used.system_us >= 20_000 || t.elapsed() > Duration::from_secs(60) {
                break used;
            }
        };
        let wall_us = t.elapsed().as_micros() as u64;
        assert!(used.user_us + used.system_us >= 20_000, "{:?}", used);
        // The test harness may run other tests on other threads meanwhile.
        assert!(
            used.user_us + used.system_us <= wall_us * 64 + 10_000,
            "{:?} in {} us",
            used,
            wall_us
        );
    }

    #[test]
    fn an_empty_window_is_zero() {
        let a = Some(CpuTimes {
            user_us: 5,
            system_us: 7,
        });
        let b = Some(CpuTimes {
            user_us: 9,
            system_us: 8,
        });
        assert_eq!(CpuTimes::window(a, b, true), Some(CpuTimes::default()));
        assert_eq!(
            CpuTimes::window(a, b, false),
            Some(CpuTimes {
                user_us: 4,
                system_us: 1
            })
        );
        assert_eq!(CpuTimes::window(None, b, false), None);
        assert_eq!(CpuTimes::json_fields(None), "");
    }
}
