// Command hosttests prints a go test -run pattern matching the tests of a package whose
// behaviour depends on the host's CPU (e2e.HostDependentTests: they name an x86 CPU beyond the
// baseline or ask for the host's best code), for CI's rerun with GRAPHC_HOST_CPU=x86-64-v3;
// nothing when the package has none.
//
//	go run ./xtools/hosttests ./lower
package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/graphc/graphc/internal/e2e"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: hosttests PACKAGE_DIR")
		os.Exit(2)
	}
	tests, err := e2e.HostDependentTests(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "hosttests:", err)
		os.Exit(1)
	}
	if len(tests) > 0 {
		fmt.Printf("^(%s)$\n", strings.Join(tests, "|"))
	}
}
