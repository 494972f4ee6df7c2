// Command prof compiles one model and writes a CPU profile of the compile, for
// `go tool pprof`:
//
//	go run ./xtools/prof [-o compile.pprof] model.onnx
//
// The profile goes to -o (default: compile.pprof in the current directory).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/graphc/graphc"
)

func main() {
	out := flag.String("o", "compile.pprof", "where to write the CPU profile")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: prof [-o FILE] MODEL")
		os.Exit(2)
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "prof:", err)
		os.Exit(1)
	}
}

func run(model, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	_, err = graphc.Compile(context.Background(), model)
	pprof.StopCPUProfile()
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "prof: wrote %s (go tool pprof %s)\n", out, out)
	return nil
}
