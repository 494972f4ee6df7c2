//go:build !unix

package volume

// cpuTime returns 0: CPU time is only measured on unix systems.
func cpuTime() int64 { return 0 }
