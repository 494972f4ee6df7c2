// This file holds the flags that say how a model is compiled, registered by graphc (compile)
// and graphc run alike: target, CPU and features, entry, pipeline, required regions, bound dims, TF
// outputs, zero-skipping, the weights file and the threads.

package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// modelFlags are the values of the flags that say how a model is compiled, on one command
// line (flags.go's compileFlags relates them to the others for checkFlags).
type modelFlags struct {
	target, mcpu, mattr, entry, pipeline, outputs, weights, threads string
	requires, dims                                                  multiFlag
	noZeroSkip                                                      bool
}

// register defines the compile flags on fs.
func (c *modelFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.target, "target", "x86-64", "the target")
	fs.StringVar(&c.mcpu, "mcpu", "", "target CPU, as llc -mcpu: its own default features (lower/targets; native = the host)")
	fs.StringVar(&c.mattr, "mattr", "", "edits the CPU's default features, as llc -mattr (+a adds, -b removes)")
	fs.StringVar(&c.entry, "entry", "main_graph", "name of the entry function")
	fs.StringVar(&c.pipeline, "pipeline", passes.DefaultPipeline, "the passes to run, comma-separated (\"\" = no optimization)")
	fs.Var(&c.requires, "require", "the required region of an output (isl notation); repeatable")
	fs.Var(&c.dims, "dim", "bind a symbolic dimension; repeatable")
	fs.StringVar(&c.outputs, "outputs", "", "TensorFlow graphs: the outputs (default: the nodes nobody consumes)")
	fs.StringVar(&c.weights, "weights", "", "keep the weights out of the module: write them to FILE, which the caller maps and passes to the entry after the workspace (const void *weights; see --emit=header)")
	fs.StringVar(&c.threads, "threads", "pool", "threading of the module: pool (ENTRY_parallel takes the caller's parallel-for; ENTRY runs on a thread pool emitted into the module, sized by GRAPHC_NUM_THREADS; serial on Hexagon), caller (ENTRY_parallel, and a serial ENTRY without the pool) or none (one thread, no ENTRY_parallel)")
	fs.BoolVar(&c.noZeroSkip, "no-zero-skip", false, "known-values: do not assume unknown floats are finite (no 0·x = 0 skipping; IEEE results for inf and NaN inputs)")
}

// options returns the compile options the flags give; a malformed --dim is a usage error.
func (c *modelFlags) options() ([]graphc.Option, error) {
	opts := []graphc.Option{
		graphc.WithTarget(c.target), graphc.WithEntry(c.entry), graphc.WithPipeline(c.pipeline),
		graphc.WithCPU(c.mcpu), graphc.WithAttrs(c.mattr), graphc.WithZeroSkipping(!c.noZeroSkip),
	}
	if c.weights != "" {
		opts = append(opts, graphc.WithWeightsFile(c.weights))
	}
	if _, err := lower.ParseThreadMode(c.threads); err != nil {
		return nil, usageErr("--threads=%s: %v", c.threads, err)
	}
	opts = append(opts, graphc.WithThreads(c.threads))
	for _, r := range c.requires {
		opts = append(opts, graphc.WithRequire(r))
	}
	if c.outputs != "" {
		opts = append(opts, graphc.WithOutputs(strings.Split(c.outputs, ",")...))
	}
	for _, d := range c.dims {
		name, val, ok := strings.Cut(d, "=")
		v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if !ok || err != nil || name == "" {
			return nil, usageErr("--dim %q: want NAME=VALUE", d)
		}
		opts = append(opts, graphc.WithDim(strings.TrimSpace(name), v))
	}
	return opts, nil
}

// checked returns what checkFlags needs to check these flags for a command compiling model to
// emit (written to out; op and dims: --emit=svg's), with the names of the flags set.
func (c *modelFlags) checked(model, emit, out, op, dims string, set map[string]bool) compileFlags {
	return compileFlags{model: model, emit: emit, out: out, target: c.target, mcpu: c.mcpu, mattr: c.mattr,
		entry: c.entry, outputs: c.outputs, op: op, dims: dims, weights: c.weights, set: set}
}
