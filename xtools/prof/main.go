// Command prof compiles one model and writes a CPU profile of the compile, or heap profiles
// at its peak, for `go tool pprof`:
//
//	go run ./xtools/prof [-o compile.pprof] model.onnx
//	go run ./xtools/prof -heap [-o compile.heap] model.onnx
//
// The CPU profile goes to -o (default: compile.pprof in the current directory). With -heap,
// the heap profile is written again each time the live heap reaches a new high (5% above the
// last), so the file holds what was live at the compile's peak; `go tool pprof
// -sample_index=inuse_space` shows who holds it (how the 100,000-op chain's 230 MB were found,
// issue 37). Each high is logged on stderr with its size.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"time"

	"github.com/graphc/graphc"
)

func main() {
	out := flag.String("o", "", "where to write the profile (default compile.pprof, or compile.heap with -heap)")
	heap := flag.Bool("heap", false, "write a heap profile at the live heap's peak instead of a CPU profile")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: prof [-heap] [-o FILE] MODEL")
		os.Exit(2)
	}
	run := runCPU
	if *heap {
		run = runHeap
	}
	if *out == "" {
		*out = "compile.pprof"
		if *heap {
			*out = "compile.heap"
		}
	}
	if err := run(flag.Arg(0), *out); err != nil {
		fmt.Fprintln(os.Stderr, "prof:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "prof: wrote %s (go tool pprof %s)\n", *out, *out)
}

func runCPU(model, out string) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	_, err = graphc.Compile(context.Background(), model, graphc.WithLLVMWriter(io.Discard))
	pprof.StopCPUProfile()
	return err
}

func runHeap(model, out string) error {
	runtime.MemProfileRate = 16 << 10 // finer than the default 512 KiB: small per-op structs show
	done := make(chan struct{})
	watched := make(chan error, 1)
	go func() { watched <- watchPeak(out, done) }()
	start := time.Now()
	_, err := graphc.Compile(context.Background(), model, graphc.WithLLVMWriter(io.Discard))
	close(done)
	if werr := <-watched; err == nil {
		err = werr
	}
	fmt.Fprintf(os.Stderr, "prof: compiled in %.1f s\n", time.Since(start).Seconds())
	return err
}

// watchPeak samples the live heap every 100 ms until done and writes the heap profile to out
// at each new high.
func watchPeak(out string, done <-chan struct{}) error {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var peak uint64
	for {
		select {
		case <-done:
			return nil
		case <-time.After(100 * time.Millisecond):
		}
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > peak+peak/20 {
			peak = v
			f, err := os.Create(out)
			if err != nil {
				return err
			}
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "prof: live heap %d MB\n", v>>20)
		}
	}
}
