// This file measures the compiler's peak memory (issue 25): graphc is built once and run as a
// subprocess on each model of the real-model set and on a generated 100,000-op chain, and its
// peak resident set (rusage Maxrss) is set beside the model's weight bytes and the target
// (peak ≤ 2.5 × weights + 64 MB; the chain under 300 MB).

package main

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

// memRow is one model's peak memory.
type memRow struct {
	name    string
	weights int64 // bytes of the initializers in their own element types
	folded  int64 // bytes of the constants fold-constants computed (counted as weights)
	peak    int64 // bytes of the compiler's peak resident set
	wall    time.Duration
	target  int64
	failed  string
}

// chainOps is the length of the generated chain (issue 25's 100,000-node chain).
const chainOps = 100000

// chainTarget is the chain's peak-memory target.
const chainTarget = 300 << 20

// runMem builds graphc into cache and reports its peak RSS compiling each wanted model of root
// and the generated chain (want["chain"], or every model when want is empty), with extra flags
// passed to each graphc run. It fails when a model misses its target.
func runMem(ctx context.Context, root, cache string, want map[string]bool, extra []string) error {
	bin := filepath.Join(cache, "graphc-mem")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/graphc")
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building graphc: %w\n%s", err, out)
	}
	type model struct{ name, path string }
	var ms []model
	if names, err := realmodel.List(root); err == nil {
		for _, n := range names {
			if len(want) == 0 || want[n] {
				ms = append(ms, model{n, filepath.Join(root, n, "model.onnx")})
			}
		}
	} else if len(want) == 0 {
		fmt.Fprintf(os.Stderr, "no real models (%v): the chain only\n", err)
	}
	if len(want) == 0 || want["chain"] {
		// written by a child process: building it here would raise this process's peak RSS,
		// which the measured children inherit
		// in a directory of its own: graphc's memory limit counts the files beside a model
		p := filepath.Join(cache, "chain", "chain.onnx")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		gen := exec.CommandContext(ctx, os.Args[0], "-mem-write-chain", p)
		if out, err := gen.CombinedOutput(); err != nil {
			return fmt.Errorf("writing the chain: %w\n%s", err, out)
		}
		ms = append(ms, model{"chain", p})
	}
	fmt.Printf("graphc peak resident set (rusage Maxrss), `graphc MODEL -o out.ll %s`; target 2.5 × (weights + folded constants) + 64 MB, the chain %d MB\n", strings.Join(extra, " "), chainTarget>>20)
	var self syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &self); err == nil {
		fmt.Printf("(this process's own peak, a floor under every figure: %.1f MB)\n", mb(self.Maxrss<<10))
	}
	fmt.Printf("%-22s %10s %10s %10s %8s %10s %8s %s\n", "model", "weights MB", "folded MB", "peak MB", "peak/w", "target MB", "time s", "")
	failed := 0
	for _, m := range ms {
		r := measureMem(ctx, bin, m.name, m.path, filepath.Join(cache, "mem.ll"), extra)
		verdict := "ok"
		switch {
		case r.failed != "":
			verdict = "error: " + r.failed
			failed++
		case r.peak > r.target:
			verdict = "OVER"
			failed++
		}
		ratio := "-"
		if r.weights+r.folded > 0 {
			ratio = fmt.Sprintf("%.2f", float64(r.peak)/float64(r.weights+r.folded))
		}
		fmt.Printf("%-22s %10.1f %10.1f %10.1f %8s %10.1f %8.2f %s\n", r.name, mb(r.weights), mb(r.folded), mb(r.peak), ratio, mb(r.target), r.wall.Seconds(), verdict)
	}
	_ = os.Remove(filepath.Join(cache, "mem.ll"))
	if failed > 0 {
		return fmt.Errorf("%d of %d models over their memory target or failing", failed, len(ms))
	}
	return nil
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// measureMem runs graphc on one model and reads its peak RSS.
func measureMem(ctx context.Context, bin, name, path, out string, extra []string) memRow {
	r := memRow{name: name}
	w, err := weightBytes(path)
	if err != nil {
		r.failed = err.Error()
		return r
	}
	r.weights = w
	// --pass-timing reports the bytes of the constants fold-constants computed (weights the
	// file holds as subgraphs, e.g. the ONNX zoo's ConstantOfShape weights): they count as
	// weights in the target
	args := append([]string{path, "-o", out, "--pass-timing"}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err = cmd.Run()
	r.wall = time.Since(start)
	if err != nil {
		r.failed = fmt.Sprintf("%v: %s", err, firstLine(stderr.String()))
		return r
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.peak = ru.Maxrss << 10 // kilobytes on Linux
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "folded constants: "); ok {
			fmt.Sscanf(rest, "%d", &r.folded)
		}
	}
	r.target = (r.weights+r.folded)*5/2 + 64<<20
	if name == "chain" {
		r.target = chainTarget
	}
	return r
}

// weightBytes sums the bytes of a model's initializers and node attribute tensors (Constant
// nodes: quantization tools write weights so) in their element types: their raw_data
// (or external data) lengths, or for typed fields their element count times the element size.
// It streams through the file: the subprocess's peak RSS includes this process's (exec keeps
// the high-water mark of the address space it replaces, and Go starts children with vfork), so
// the benchmark itself must stay small.
func weightBytes(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r := &posReader{r: bufio.NewReaderSize(f, 1<<16)}
	var total int64
	err = scanFields(r, st.Size(), func(num protowire.Number, typ protowire.Type, n int64) (bool, error) {
		if num != 7 || typ != protowire.BytesType { // ModelProto.graph
			return false, nil
		}
		return true, scanFields(r, n, func(num protowire.Number, typ protowire.Type, n int64) (bool, error) {
			switch {
			case num == 5 && typ == protowire.BytesType: // GraphProto.initializer
				w, err := tensorBytes(r, n)
				total += w
				return true, err
			case num == 1 && typ == protowire.BytesType: // GraphProto.node: Constant tensors
				return true, scanFields(r, n, func(num protowire.Number, typ protowire.Type, n int64) (bool, error) {
					if num != 5 || typ != protowire.BytesType { // NodeProto.attribute
						return false, nil
					}
					return true, scanFields(r, n, func(num protowire.Number, typ protowire.Type, n int64) (bool, error) {
						if num != 5 || typ != protowire.BytesType { // AttributeProto.t
							return false, nil
						}
						w, err := tensorBytes(r, n)
						total += w
						return true, err
					})
				})
			}
			return false, nil
		})
	})
	return total, err
}

// tensorBytes reads a TensorProto of n bytes and returns the bytes of its data.
func tensorBytes(r *posReader, n int64) (int64, error) {
	raw, elems := int64(-1), int64(1)
	var elem ir.DType
	var external bool
	err := scanFields(r, n, func(num protowire.Number, typ protowire.Type, n int64) (bool, error) {
		switch {
		case num == 9 && typ == protowire.BytesType: // raw_data
			raw = n
		case num == 1 && typ == protowire.VarintType: // dims, unpacked
			v, err := binary.ReadUvarint(r)
			elems *= int64(v)
			return true, err
		case num == 1 && typ == protowire.BytesType: // dims, packed
			for end := r.n + n; r.n < end; {
				v, err := binary.ReadUvarint(r)
				if err != nil {
					return true, err
				}
				elems *= int64(v)
			}
			return true, nil
		case num == 2 && typ == protowire.VarintType: // data_type
			v, err := binary.ReadUvarint(r)
			if err == nil {
				elem, _ = onnx.DType(int32(v))
			}
			return true, err
		case num == 14 && typ == protowire.VarintType: // data_location
			v, err := binary.ReadUvarint(r)
			external = v == 1
			return true, err
		}
		return false, nil
	})
	if raw >= 0 && !external {
		return raw, err
	}
	return elems * int64(max(elem.Size(), 1)), err
}

// scanFields reads the fields of a message of n bytes from r, calling f with each field's
// number, wire type and, for a length-delimited field, its length (-1 for others); f reads the
// field's value itself and returns true, or returns false to have it skipped.
func scanFields(r *posReader, n int64, f func(protowire.Number, protowire.Type, int64) (bool, error)) error {
	for end := r.n + n; r.n < end; {
		tag, err := binary.ReadUvarint(r)
		if err != nil {
			return err
		}
		num, typ := protowire.Number(tag>>3), protowire.Type(tag&7)
		size := int64(-1)
		switch typ {
		case protowire.VarintType:
		case protowire.Fixed32Type:
			size = 4
		case protowire.Fixed64Type:
			size = 8
		case protowire.BytesType:
			v, err := binary.ReadUvarint(r)
			if err != nil {
				return err
			}
			size = int64(v)
		default:
			return fmt.Errorf("unsupported wire type %d at byte %d", typ, r.n)
		}
		done, err := f(num, typ, size)
		if err != nil {
			return err
		}
		switch {
		case done:
		case size < 0:
			_, err = binary.ReadUvarint(r)
		default:
			err = r.discard(size)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// posReader reads through a buffer and counts the bytes read.
type posReader struct {
	r *bufio.Reader
	n int64
}

func (p *posReader) ReadByte() (byte, error) {
	b, err := p.r.ReadByte()
	if err == nil {
		p.n++
	}
	return b, err
}

func (p *posReader) discard(n int64) error {
	for n > 0 {
		k, err := p.r.Discard(int(min(n, 1<<30)))
		p.n += int64(k)
		n -= int64(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// writeChain writes the chain model to path (graphc-bench -mem-write-chain, run by runMem).
func writeChain(path string) error { return onnxgen.Chain(chainOps).Write(path) }
