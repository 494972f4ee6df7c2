package main

import (
	"context"
	"os"
	"runtime/pprof"

	"github.com/graphc/graphc"
)

func main() {
	f, _ := os.Create("/tmp/xf.pprof")
	pprof.StartCPUProfile(f)
	_, err := graphc.Compile(context.Background(), os.Args[1])
	pprof.StopCPUProfile()
	if err != nil {
		panic(err)
	}
}
