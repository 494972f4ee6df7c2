// This file reports internal errors: one line on the terminal asking for a report, and the
// stack in a crash file rather than a goroutine dump on the user's terminal.

package main

import (
	"fmt"
	"io"
	"os"
)

// reportCrash prints msg and where the stack was saved. GRAPHC_TRACEBACK=1 prints the stack
// on stderr instead, as it does when the crash file cannot be written.
func reportCrash(stderr io.Writer, msg, stack string) {
	fmt.Fprintf(stderr, "graphc: %s\n", msg)
	where := ""
	if os.Getenv("GRAPHC_TRACEBACK") == "" {
		if f, err := os.CreateTemp("", "graphc-crash-*.txt"); err == nil {
			_, werr := fmt.Fprintf(f, "graphc %s\ncommand: %q\n%s\n\n%s", versionString(), os.Args, msg, stack)
			if cerr := f.Close(); werr == nil && cerr == nil {
				where = f.Name()
			}
		}
	}
	if where == "" {
		fmt.Fprintf(stderr, "%s\n", stack)
		where = "the stack above"
	}
	fmt.Fprintf(stderr, "This is a bug in graphc; please report it with the model, the command line and %s.\n", where)
}
