// This file loads a shared library with dlopen and calls its entry.

package modelrt

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include "call.h"

static void *mrt_open(const char *path) { return dlopen(path, RTLD_NOW | RTLD_LOCAL); }
static const char *mrt_error(void) { const char *e = dlerror(); return e ? e : "unknown dlopen error"; }
static const char *mrt_signature(void *f) { return ((const char *(*)(void))f)(); }
static void *mrt_alloc(size_t n) { return aligned_alloc(128, n); }
*/
import "C"

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// Model is a loaded module. Its methods are safe for concurrent use.
type Model struct {
	path    string
	sig     *Signature
	handle  unsafe.Pointer
	entry   unsafe.Pointer // ENTRY
	wsSize  unsafe.Pointer // ENTRY_workspace_size
	weights *weightsFile

	mu     sync.RWMutex // held for reading by calls, for writing by Close
	closed bool
	serial sync.Mutex // serialises the calls of a profiling build

	poolMu sync.Mutex
	pool   []workspace // workspaces not in use
}

type workspace struct {
	p    unsafe.Pointer
	size int64
}

// LoadOption configures Load.
type LoadOption func(*loadConfig)

type loadConfig struct {
	entry   string
	weights string
}

// WithEntry names the entry to call (graphc --entry); by default the library's only entry
// with a signature.
func WithEntry(name string) LoadOption { return func(c *loadConfig) { c.entry = name } }

// WithWeights names the weights file of a module compiled with --weights (graphc
// --weights=FILE); it is mapped read-only, its pages read on demand.
func WithWeights(path string) LoadOption { return func(c *loadConfig) { c.weights = path } }

// Load opens the shared library at path, reads its entry's signature and, for a module compiled
// with --weights, maps the weights file.
func Load(path string, opts ...LoadOption) (*Model, error) {
	var cfg loadConfig
	for _, o := range opts {
		o(&cfg)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("modelrt: %w", err)
	}
	entry := cfg.entry
	if entry == "" {
		var err error
		if entry, err = findEntry(path); err != nil {
			return nil, err
		}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	h := C.mrt_open(cpath)
	if h == nil {
		msg := C.GoString(C.mrt_error())
		if !strings.HasPrefix(msg, path) {
			msg = path + ": " + msg
		}
		return nil, fmt.Errorf("modelrt: %s", msg)
	}
	m := &Model{path: path, handle: h}
	fail := func(err error) (*Model, error) {
		C.dlclose(h)
		return nil, err
	}
	sym := func(name string) unsafe.Pointer {
		cn := C.CString(name)
		defer C.free(unsafe.Pointer(cn))
		return C.dlsym(h, cn)
	}
	sigFn := sym(entry + "_signature")
	if sigFn == nil {
		return fail(fmt.Errorf("modelrt: %s has no %s_signature: build it with graphc --emit=lib (or graphc.WithSignature)", path, entry))
	}
	sig, err := ParseSignature([]byte(C.GoString(C.mrt_signature(sigFn))))
	if err != nil {
		return fail(fmt.Errorf("%w (%s)", err, path))
	}
	m.sig = sig
	if m.entry = sym(entry); m.entry == nil {
		return fail(fmt.Errorf("modelrt: %s: no entry %s", path, entry))
	}
	if m.wsSize = sym(entry + "_workspace_size"); m.wsSize == nil {
		return fail(fmt.Errorf("modelrt: %s: no %s_workspace_size", path, entry))
	}
	if n := len(sig.Inputs) + len(sig.Outputs) + len(sig.Params) + 2; n > maxArgs {
		return fail(fmt.Errorf("modelrt: %s: %s takes %d arguments, more than the %d this package can pass", path, entry, n, maxArgs))
	}
	switch {
	case sig.Weights != nil && cfg.weights == "":
		return fail(fmt.Errorf("modelrt: %s: %s was compiled with --weights and takes a weights file of %d bytes: pass modelrt.WithWeights(FILE)", path, entry, sig.Weights.Bytes))
	case sig.Weights == nil && cfg.weights != "":
		return fail(fmt.Errorf("modelrt: %s: %s holds its weights (compiled without --weights), but a weights file %s was given", path, entry, cfg.weights))
	case sig.Weights != nil:
		w, err := mapWeights(cfg.weights, sig.Weights)
		if err != nil {
			return fail(err)
		}
		m.weights = w
	}
	return m, nil
}

// findEntry returns the entry of the library's only ENTRY_signature symbol.
func findEntry(path string) (string, error) {
	f, err := elf.Open(path)
	if err != nil {
		return "", fmt.Errorf("modelrt: %s: %w", path, err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return "", fmt.Errorf("modelrt: %s: reading its symbols: %w", path, err)
	}
	var entries []string
	for _, s := range syms {
		if name, ok := strings.CutSuffix(s.Name, "_signature"); ok && elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Section != elf.SHN_UNDEF && name != "" {
			entries = append(entries, name)
		}
	}
	switch len(entries) {
	case 0:
		return "", fmt.Errorf("modelrt: %s exports no ENTRY_signature: build it with graphc --emit=lib (or graphc.WithSignature)", path)
	case 1:
		return entries[0], nil
	}
	return "", fmt.Errorf("modelrt: %s has %d entries (%s): choose one with modelrt.WithEntry", path, len(entries), strings.Join(entries, ", "))
}

// Signature returns the entry's ABI as the module describes it.
func (m *Model) Signature() *Signature { return m.sig }

// Path returns the library's path.
func (m *Model) Path() string { return m.path }

// ErrClosed is returned by calls on a closed Model.
var ErrClosed = errors.New("modelrt: model is closed")

// Close waits for the calls in progress, frees the workspaces, unmaps the weights and closes
// the library.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	for _, w := range m.pool {
		C.free(w.p)
	}
	m.pool = nil
	var err error
	if m.weights != nil {
		err = m.weights.close()
	}
	if C.dlclose(m.handle) != 0 {
		err = errors.Join(err, fmt.Errorf("modelrt: closing %s: %s", m.path, C.GoString(C.mrt_error())))
	}
	return err
}

// maxArgs is the most arguments call.h passes.
const maxArgs = 1024

// argWords returns the size of the argument array for n arguments (call.h's buckets).
func argWords(n int) int {
	w := 8
	for w < n {
		w *= 2
	}
	return w
}

// WorkspaceSize returns the bytes of workspace a call with the given symbolic dims needs, as
// ENTRY_workspace_size computes it.
func (m *Model) WorkspaceSize(dims map[string]int64) (int64, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return 0, ErrClosed
	}
	return m.workspaceSize(dims)
}

func (m *Model) workspaceSize(dims map[string]int64) (int64, error) {
	args := make([]uintptr, argWords(len(m.sig.Params)))
	for i, p := range m.sig.Params {
		v, ok := dims[p]
		if !ok {
			return 0, fmt.Errorf("modelrt: symbolic dim %s is not bound", p)
		}
		args[i] = uintptr(v)
	}
	n := int64(C.mrt_call_i64(m.wsSize, C.int(len(m.sig.Params)), (*C.uintptr_t)(unsafe.Pointer(&args[0]))))
	if n < 0 {
		return 0, &StatusError{Entry: m.sig.Entry + "_workspace_size", Status: 1, Dims: dimsString(dims), Requires: m.sig.Requires}
	}
	return n, nil
}

// getWorkspace takes a free workspace of at least n bytes, or allocates one (128-byte aligned).
func (m *Model) getWorkspace(n int64) (workspace, error) {
	m.poolMu.Lock()
	for i, w := range m.pool {
		if w.size >= n {
			m.pool = append(m.pool[:i], m.pool[i+1:]...)
			m.poolMu.Unlock()
			return w, nil
		}
	}
	m.poolMu.Unlock()
	size := (max(n, 1) + 127) / 128 * 128
	p := C.mrt_alloc(C.size_t(size))
	if p == nil {
		return workspace{}, fmt.Errorf("modelrt: cannot allocate a workspace of %d bytes", size)
	}
	return workspace{p: p, size: size}, nil
}

func (m *Model) putWorkspace(w workspace) {
	m.poolMu.Lock()
	m.pool = append(m.pool, w)
	m.poolMu.Unlock()
}

// Run calls the entry on inputs (in the signature's order) and returns its outputs. It checks
// each input's element type and shape, inferring the symbolic dims from the shapes.
// Cancelling ctx stops a call before it starts, not while the compiled code runs.
func (m *Model) Run(ctx context.Context, inputs ...*Tensor) ([]*Tensor, error) {
	dims, err := m.check(inputs)
	if err != nil {
		return nil, err
	}
	shapes := make([][]int64, len(m.sig.Outputs))
	total := int64(0)
	for i, o := range m.sig.Outputs {
		if shapes[i], err = o.ShapeFor(m.sig.AtBounds(dims)); err != nil { // bounded dims at their bounds
			return nil, fmt.Errorf("modelrt: output %q: %w", o.Name, err)
		}
		n, err := elements(shapes[i])
		bytes, ok := mulNoOverflow(n, int64(o.DType.Size()))
		if err != nil || !ok || total+bytes > physicalMemory() {
			// what the inputs ask for cannot be allocated: an error, not a crash of the process
			return nil, inputErrorf("modelrt: for %s the outputs take more than the machine's %d bytes of memory (output %q: %s%v)",
				dimsString(dims), physicalMemory(), o.Name, o.DType, shapes[i])
		}
		total += bytes
	}
	outs := make([]*Tensor, len(m.sig.Outputs))
	for i, o := range m.sig.Outputs {
		if outs[i], err = Zeros(o.DType, shapes[i]); err != nil {
			return nil, fmt.Errorf("output %q: %w", o.Name, err)
		}
	}
	if err := m.call(ctx, inputs, outs, dims); err != nil {
		return nil, err
	}
	return m.sig.trimBounded(outs, dims)
}

// RunInto calls the entry on inputs, writing the outputs into outs (in the signature's order,
// of the outputs' element types and shapes): repeated calls then allocate nothing. Outputs
// whose extents the entry computes (Signature.Bounded) have their shapes at the bounds; the
// entry writes the computed extents' elements first and the values into the dims' outputs.
func (m *Model) RunInto(ctx context.Context, inputs, outs []*Tensor) error {
	dims, err := m.check(inputs)
	if err != nil {
		return err
	}
	if len(outs) != len(m.sig.Outputs) {
		return inputErrorf("modelrt: %d output tensors for %d outputs", len(outs), len(m.sig.Outputs))
	}
	for i, o := range m.sig.Outputs {
		shape, err := o.ShapeFor(m.sig.AtBounds(dims))
		if err != nil {
			return fmt.Errorf("modelrt: output %q: %w", o.Name, err)
		}
		if err := checkTensor("output", i, o, outs[i], shape); err != nil {
			return err
		}
	}
	return m.call(ctx, inputs, outs, dims)
}

// check validates the inputs and returns the symbolic dims their shapes give.
func (m *Model) check(inputs []*Tensor) (map[string]int64, error) {
	if len(inputs) != len(m.sig.Inputs) {
		var names []string
		for _, in := range m.sig.Inputs {
			names = append(names, in.Name)
		}
		return nil, inputErrorf("modelrt: %d inputs given, %s takes %d (%s)", len(inputs), m.sig.Entry, len(m.sig.Inputs), strings.Join(names, ", "))
	}
	shapes := make([][]int64, len(inputs))
	for i, t := range inputs {
		a := m.sig.Inputs[i]
		if t == nil {
			return nil, inputErrorf("modelrt: input %q (in%d) is nil", a.Name, i)
		}
		if t.DType != a.DType {
			return nil, inputErrorf("modelrt: input %q (in%d) is %s, the model takes %s%s", a.Name, i, t.DType, a.DType, ShapeString(a.Shape))
		}
		if len(t.Shape) != len(a.Shape) {
			return nil, inputErrorf("modelrt: input %q (in%d) has shape %v (rank %d), the model takes %s%s (rank %d)", a.Name, i, t.Shape, len(t.Shape), a.DType, ShapeString(a.Shape), len(a.Shape))
		}
		shapes[i] = t.Shape
	}
	dims, err := m.sig.InferDims(shapes)
	if err != nil {
		return nil, inputErrorf("modelrt: %v", err)
	}
	for i, t := range inputs {
		a := m.sig.Inputs[i]
		want, err := a.ShapeFor(dims)
		if err != nil {
			return nil, inputErrorf("modelrt: input %q (in%d) has shape %v: %v", a.Name, i, t.Shape, err)
		}
		if err := checkTensor("input", i, a, t, want); err != nil {
			return nil, err
		}
	}
	return dims, nil
}

// checkTensor checks a tensor against its argument for the given shape.
func checkTensor(kind string, i int, a Arg, t *Tensor, want []int64) error {
	short := map[string]string{"input": "in", "output": "out"}[kind]
	if t == nil {
		return inputErrorf("modelrt: %s %q (%s%d) is nil", kind, a.Name, short, i)
	}
	if t.DType != a.DType {
		return inputErrorf("modelrt: %s %q (%s%d) is %s, the model's is %s%s", kind, a.Name, short, i, t.DType, a.DType, ShapeString(a.Shape))
	}
	if fmt.Sprint(t.Shape) != fmt.Sprint(want) {
		s := ShapeString(a.Shape)
		if fmt.Sprint(want) != strings.ReplaceAll(s, ",", "") {
			s += fmt.Sprintf(" = %v", want) // symbolic: its value for this call
		}
		return inputErrorf("modelrt: %s %q (%s%d) has shape %v, the model's is %s", kind, a.Name, short, i, t.Shape, s)
	}
	n, err := elements(want)
	if err != nil {
		return fmt.Errorf("%s %q: %w", kind, a.Name, err)
	}
	if bytes := n * int64(a.DType.Size()); int64(len(t.data)) != bytes {
		return inputErrorf("modelrt: %s %q (%s%d) holds %d bytes, its shape %v of %s needs %d", kind, a.Name, short, i, len(t.data), want, a.DType, bytes)
	}
	return nil
}

// empty is what a tensor without elements points at (the entry never reads it).
var empty = C.mrt_alloc(128)

// call runs the entry once with checked tensors.
func (m *Model) call(ctx context.Context, inputs, outs []*Tensor, dims map[string]int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ErrClosed
	}
	need, err := m.workspaceSize(dims)
	if err != nil {
		return err
	}
	ws, err := m.getWorkspace(need)
	if err != nil {
		return err
	}
	defer m.putWorkspace(ws)
	n := len(inputs) + len(outs) + len(m.sig.Params) + 1
	if m.weights != nil {
		n++
	}
	args := make([]uintptr, argWords(n))
	var pin runtime.Pinner
	defer pin.Unpin()
	k := 0
	for _, ts := range [][]*Tensor{inputs, outs} {
		for _, t := range ts {
			p := unsafe.Pointer(empty)
			if len(t.data) > 0 {
				p = unsafe.Pointer(&t.data[0])
				pin.Pin(p)
			}
			args[k] = uintptr(p)
			k++
		}
	}
	for _, p := range m.sig.Params {
		args[k] = uintptr(dims[p])
		k++
	}
	args[k] = uintptr(ws.p)
	k++
	if m.weights != nil {
		args[k] = uintptr(m.weights.p)
	}
	if m.sig.Profile {
		m.serial.Lock()
		defer m.serial.Unlock()
	}
	rc := int32(C.mrt_call_i32(m.entry, C.int(n), (*C.uintptr_t)(unsafe.Pointer(&args[0]))))
	runtime.KeepAlive(inputs)
	runtime.KeepAlive(outs)
	if rc != 0 {
		return &StatusError{Entry: m.sig.Entry, Status: rc, Dims: dimsString(dims), Requires: m.sig.Requires}
	}
	return nil
}
