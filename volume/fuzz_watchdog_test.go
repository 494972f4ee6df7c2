// This file holds the time limit of the package's fuzz targets (FuzzParse, FuzzScan).

package volume

import (
	"fmt"
	"runtime/debug"
	"time"
)

// fuzzTimeLimit bounds one corpus input under go test: the seeds take milliseconds, so an input
// that takes this long found super-linear work (a hang, for a user of the parser or of graphc
// calc). go test -fuzz bounds every input at 10 s itself; the corpus holds inputs that stop
// with ErrTooComplex once their parse has spent its budget (maxOpWork, 0.2 to 0.9 s; several
// budgets, 0.6 s, before a parse had one), which a machine loaded by other test packages slowed
// past 10 s once, so the bound here is 30 s.
const fuzzTimeLimit = 30 * time.Second

// watchdog crashes the process, with every goroutine's stack, unless the returned stop is called
// within limit. It gives the corpus that go test runs the bound go test -fuzz already puts on
// every input: a fuzz worker panics after 10 s (internal/fuzz; its output is discarded) and the
// input is reported as "fuzzing process hung or terminated unexpectedly".
func watchdog(limit time.Duration) (stop func() bool) {
	return time.AfterFunc(limit, func() {
		debug.SetTraceback("all")
		panic(fmt.Sprintf("the input took longer than %v", limit))
	}).Stop
}
