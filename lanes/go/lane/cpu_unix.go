//go:build unix

package lane

import "syscall"

// CPUNow reads the process's CPU time; ok is false where it cannot.
func CPUNow() (CPUTimes, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return CPUTimes{}, false
	}
	us := func(tv syscall.Timeval) uint64 {
		v := int64(tv.Sec)*1000000 + int64(tv.Usec)
		if v < 0 {
			return 0
		}
		return uint64(v)
	}
	return CPUTimes{UserUS: us(ru.Utime), SystemUS: us(ru.Stime)}, true
}
