//go:build unix

package volume

import "syscall"

// cpuTime returns the CPU time (user and system) this process has used, in nanoseconds, or 0
// when it cannot tell.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
