package lane

import "strconv"

// CPUTimes is the process's own user and system CPU time in microseconds,
// as getrusage(RUSAGE_SELF) gives it (SPEC.md section 7).
type CPUTimes struct {
	UserUS   uint64
	SystemUS uint64
}

// cpuWindow holds the two readings of a measured window.
type cpuWindow struct {
	start, end     CPUTimes
	startOK, endOK bool
}

func (w *cpuWindow) open()  { w.start, w.startOK = CPUNow() }
func (w *cpuWindow) close() { w.end, w.endOK = CPUNow() }

// appendFields appends `"cpu_user_us":U,"cpu_system_us":S,` or nothing
// when a reading failed. An empty window (no measured round trip) is 0 by
// definition, whatever the clock's granularity says.
func (w *cpuWindow) appendFields(b []byte, empty bool) []byte {
	if !w.startOK || !w.endOK {
		return b
	}
	var u, s uint64
	if !empty {
		if w.end.UserUS > w.start.UserUS {
			u = w.end.UserUS - w.start.UserUS
		}
		if w.end.SystemUS > w.start.SystemUS {
			s = w.end.SystemUS - w.start.SystemUS
		}
	}
	b = append(b, `"cpu_user_us":`...)
	b = strconv.AppendUint(b, u, 10)
	b = append(b, `,"cpu_system_us":`...)
	b = strconv.AppendUint(b, s, 10)
	return append(b, ',')
}
