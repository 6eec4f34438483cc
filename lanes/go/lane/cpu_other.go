//go:build !unix

package lane

// CPUNow is not available here (no getrusage): the result lines leave the
// CPU figures out, which the runner reports as not reported.
func CPUNow() (CPUTimes, bool) { return CPUTimes{}, false }
