// Command capi is libgraphc, graphc's C API: built with
//
//	go build -buildmode=c-shared -o libgraphc.so ./capi
//
// it exports the functions graphc.h declares, which compile a model file or a model held in
// memory with options given as key/value pairs and return the module, the header, the
// diagnostics and the dead-iteration report in a result the caller frees with
// graphc_result_free. Errors come back as status codes with messages; a panic inside graphc is
// recovered and reported as GRAPHC_ERR_INTERNAL, never taking the host process down.
package main

/*
#include <stdlib.h>
#include <string.h>
#include "result.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

func main() {}

// Status codes (graphc.h).
const (
	statusOK       = 0
	statusInput    = 1
	statusUsage    = 2
	statusInternal = 3
	statusArgument = 4
)

// compiled is what a compile produced, before it is copied into C memory.
type compiled struct {
	status                            int
	err                               string
	module, header, diags, deadReport []byte
}

//export graphc_compile_file
func graphc_compile_file(path *C.char, keys, values **C.char, n C.int, out **C.struct_graphc_result) (status C.int) {
	if out == nil {
		return statusArgument
	}
	*out = nil
	res := protect(func() compiled {
		if path == nil {
			return failure(statusArgument, errors.New("graphc_compile_file: path is NULL"))
		}
		opts, emit, err := options(keys, values, n)
		if err != nil {
			return failure(statusUsage, err)
		}
		return compile(C.GoString(path), opts, emit)
	})
	*out = toC(res)
	return C.int(res.status)
}

//export graphc_compile_bytes
func graphc_compile_bytes(data unsafe.Pointer, size C.size_t, format *C.char, keys, values **C.char, n C.int, out **C.struct_graphc_result) C.int {
	if out == nil {
		return statusArgument
	}
	*out = nil
	res := protect(func() compiled {
		if data == nil && size > 0 || format == nil {
			return failure(statusArgument, errors.New("graphc_compile_bytes: data or format is NULL"))
		}
		f := strings.TrimPrefix(C.GoString(format), ".")
		switch f {
		case "onnx", "pb", "pbtxt", "graph":
		default:
			return failure(statusUsage, fmt.Errorf("graphc_compile_bytes: format %q: want onnx, pb, pbtxt or graph", f))
		}
		opts, emit, err := options(keys, values, n)
		if err != nil {
			return failure(statusUsage, err)
		}
		dir, err := os.MkdirTemp("", "libgraphc-")
		if err != nil {
			return failure(statusInput, err)
		}
		defer os.RemoveAll(dir)
		p := filepath.Join(dir, "model."+f)
		var b []byte
		if size > 0 {
			b = unsafe.Slice((*byte)(data), int(size)) // the caller's bytes, written out without a copy
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			return failure(statusInput, err)
		}
		r := compile(p, opts, emit)
		r.err = strings.ReplaceAll(r.err, p, "<bytes>")
		return r
	})
	*out = toC(res)
	return C.int(res.status)
}

// protect runs f, turning a panic into an internal error.
func protect(f func() compiled) (res compiled) {
	defer func() {
		if r := recover(); r != nil {
			res = failure(statusInternal, fmt.Errorf("internal error: %v\n%s", r, debug.Stack()))
		}
	}()
	return f()
}

func failure(status int, err error) compiled {
	return compiled{status: status, err: "graphc: " + err.Error()}
}

// options converts the key/value pairs to compile options and the emit kind.
func options(keys, values **C.char, n C.int) ([]graphc.Option, string, error) {
	if n < 0 {
		return nil, "", fmt.Errorf("negative option count %d", n)
	}
	if n > 0 && (keys == nil || values == nil) {
		return nil, "", fmt.Errorf("%d options but keys or values is NULL", n)
	}
	ks := unsafe.Slice(keys, int(n))
	vs := unsafe.Slice(values, int(n))
	var opts []graphc.Option
	emit := "llvm"
	for i := range ks {
		if ks[i] == nil || vs[i] == nil {
			return nil, "", fmt.Errorf("option %d: NULL key or value", i)
		}
		k, v := strings.TrimPrefix(C.GoString(ks[i]), "--"), C.GoString(vs[i])
		switch k {
		case "target":
			opts = append(opts, graphc.WithTarget(v))
		case "mcpu":
			opts = append(opts, graphc.WithCPU(v))
		case "mattr":
			opts = append(opts, graphc.WithAttrs(v))
		case "entry":
			opts = append(opts, graphc.WithEntry(v))
		case "pipeline":
			opts = append(opts, graphc.WithPipeline(v))
		case "require":
			opts = append(opts, graphc.WithRequire(v))
		case "dim":
			name, val, ok := strings.Cut(v, "=")
			x, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
			if !ok || err != nil || strings.TrimSpace(name) == "" {
				return nil, "", fmt.Errorf("option dim=%q: want NAME=VALUE", v)
			}
			opts = append(opts, graphc.WithDim(strings.TrimSpace(name), x))
		case "outputs":
			opts = append(opts, graphc.WithOutputs(strings.Split(v, ",")...))
		case "weights":
			opts = append(opts, graphc.WithWeightsFile(v))
		case "no-zero-skip":
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, "", fmt.Errorf("option no-zero-skip=%q: want 1 or 0", v)
			}
			opts = append(opts, graphc.WithZeroSkipping(!on))
		case "emit":
			switch v {
			case "llvm", "asm", "obj", "lib":
				emit = v
			default:
				return nil, "", fmt.Errorf("option emit=%q: want llvm, asm, obj or lib", v)
			}
		default:
			msg := fmt.Sprintf("unknown option %q", k)
			known := []string{"target", "mcpu", "mattr", "entry", "pipeline", "require", "dim", "outputs", "weights", "no-zero-skip", "emit"}
			if s := passes.Suggest(k, known); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, "", fmt.Errorf("%s; options are %s", msg, strings.Join(known, ", "))
		}
	}
	if emit == "lib" {
		opts = append(opts, graphc.WithSignature())
	}
	return opts, emit, nil
}

// compile compiles the model at path.
func compile(path string, opts []graphc.Option, emit string) compiled {
	ctx := context.Background()
	res, err := graphc.Compile(ctx, path, append(opts, graphc.WithDumpWriter(discard{}))...)
	if err != nil {
		return failure(statusOf(err), err)
	}
	c := compiled{status: statusOK, module: []byte(res.LLVM), header: []byte(res.Header), deadReport: []byte(res.DeadReport)}
	var diags []string
	for _, d := range res.Diagnostics {
		diags = append(diags, d.String())
	}
	if len(diags) > 0 {
		c.diags = []byte(strings.Join(diags, "\n") + "\n")
	}
	if emit != "llvm" {
		data, err := lower.Build(ctx, res.Module, emit)
		if err != nil {
			status := statusInput
			if errors.Is(err, lower.ErrUnknownFeature) {
				status = statusUsage
			}
			return failure(status, err)
		}
		c.module = data
	}
	return c
}

// statusOf maps a compile error to its status, as the graphc command maps it to an exit status.
func statusOf(err error) int {
	var ie *graphc.InternalError
	var pe *passes.InternalError
	switch {
	case errors.As(err, &ie), errors.As(err, &pe):
		return statusInternal
	case errors.Is(err, graphc.ErrUsage):
		return statusUsage
	}
	return statusInput
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// toC copies a result into C memory.
func toC(c compiled) *C.struct_graphc_result {
	r := (*C.struct_graphc_result)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_graphc_result{}))))
	if r == nil {
		return nil
	}
	r.status = C.int(c.status)
	r.error = cBytes([]byte(c.err))
	if c.status == statusOK {
		r.module, r.module_len = cBytes(c.module), C.size_t(len(c.module))
		r.header, r.header_len = cBytes(c.header), C.size_t(len(c.header))
		r.diagnostics, r.diagnostics_len = cBytes(c.diags), C.size_t(len(c.diags))
		r.dead_report, r.dead_report_len = cBytes(c.deadReport), C.size_t(len(c.deadReport))
	}
	return r
}

// cBytes returns a NUL-terminated copy of b in C memory.
func cBytes(b []byte) *C.char {
	p := (*C.char)(C.malloc(C.size_t(len(b) + 1)))
	if p == nil {
		return nil
	}
	if len(b) > 0 {
		C.memcpy(unsafe.Pointer(p), unsafe.Pointer(&b[0]), C.size_t(len(b)))
	}
	*(*C.char)(unsafe.Add(unsafe.Pointer(p), len(b))) = 0
	return p
}

// version is graphc_version's string, made once (and never freed).
var version = sync.OnceValue(func() *C.char {
	v := "graphc devel"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = "graphc " + bi.Main.Version + " " + bi.GoVersion
	}
	return C.CString(v)
})

//export graphc_version
func graphc_version() *C.char { return version() }
