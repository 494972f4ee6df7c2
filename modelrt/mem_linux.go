// This file bounds what Run allocates by the machine's memory (Linux).

package modelrt

import (
	"sync"
	"syscall"
)

// physicalMemory returns the machine's RAM in bytes (a very large number if unknown).
var physicalMemory = sync.OnceValue(func() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil || si.Totalram == 0 {
		return 1 << 62
	}
	return int64(si.Totalram) * int64(si.Unit)
})
