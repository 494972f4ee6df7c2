package modelrt_test

import (
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
)

// abiDTypes is every element type of the ABI (README, "The ABI").
var abiDTypes = []ir.DType{ir.F64, ir.F32, ir.F16, ir.BF16, ir.F8E4M3FN, ir.F8E4M3FNUZ, ir.F8E5M2, ir.F8E5M2FNUZ,
	ir.F8E8M0, ir.F4E2M1, ir.I64, ir.I32, ir.I16, ir.I8, ir.I4, ir.I2, ir.U64, ir.U32, ir.U16, ir.U8, ir.U4, ir.U2, ir.Bool}

// randomBits returns n elements of dt in the ABI layout: random bits for the byte-sized and
// wider types, valid codes for the sub-byte ones (sign-extended for the signed integers) and
// 0 or 1 for bool.
func randomBits(r *rand.Rand, dt ir.DType, n int) []byte {
	out := make([]byte, n*dt.Size())
	for i := range out {
		out[i] = byte(r.Uint32())
	}
	if dt.Size() == 1 {
		for i := range out {
			switch dt {
			case ir.Bool:
				out[i] &= 1
			case ir.I4:
				out[i] = byte(int8(out[i]<<4) >> 4)
			case ir.U4, ir.F4E2M1:
				out[i] &= 15
			case ir.I2:
				out[i] = byte(int8(out[i]<<6) >> 6)
			case ir.U2:
				out[i] &= 3
			}
		}
	}
	return out
}

// TestEveryDType calls one entry with an input and an output of every ABI element type
// (transposes of f?[N, 3], so the symbolic N is inferred from the shapes) and checks every
// output's bits, plus a concat whose extent is 2·N.
func TestEveryDType(t *testing.T) {
	var ins, body, rets []string
	for _, d := range abiDTypes {
		ins = append(ins, fmt.Sprintf("%%x_%s: %s[N, 3]", d, d))
		body = append(body, fmt.Sprintf("  %%y_%s = transpose(%%x_%s) {perm = [1, 0]} : %s[3, N]", d, d, d))
		rets = append(rets, "%y_"+d.String())
	}
	src := fmt.Sprintf("graph @main_graph[N](%s) {\n%s\n  %%c = concat(%%x_f32, %%x_f32) {axis = 0} : f32[2*N, 3]\n  return %s, %%c\n}\n",
		strings.Join(ins, ", "), strings.Join(body, "\n"), strings.Join(rets, ", "))
	lib := buildLib(t, t.TempDir(), "all", src)
	m, err := modelrt.Load(lib)
	require.NoError(t, err)
	defer m.Close()
	sig := m.Signature()
	require.Equal(t, []string{"N"}, sig.Params)
	require.Len(t, sig.Inputs, len(abiDTypes))
	require.Len(t, sig.Outputs, len(abiDTypes)+1)
	assert.Equal(t, "[2*N, 3]", modelrt.ShapeString(sig.Outputs[len(abiDTypes)].Shape))
	r := rand.New(rand.NewPCG(3, 8))
	for _, n := range []int64{1, 5, 0} {
		var inputs []*modelrt.Tensor
		for _, d := range abiDTypes {
			inputs = append(inputs, modelrt.FromBytes(d, []int64{n, 3}, randomBits(r, d, int(n)*3)))
		}
		outs, err := m.Run(context.Background(), inputs...)
		require.NoError(t, err, "N = %d", n)
		for k, d := range abiDTypes {
			o := outs[k]
			require.Equal(t, d, o.DType)
			require.Equal(t, []int64{3, n}, o.Shape, "%s", d)
			sz := d.Size()
			in := inputs[k].Bytes()
			want := make([]byte, len(in))
			for i := 0; i < int(n); i++ {
				for j := 0; j < 3; j++ {
					copy(want[(j*int(n)+i)*sz:], in[(i*3+j)*sz:(i*3+j+1)*sz])
				}
			}
			assert.Equal(t, want, o.Bytes(), "%s, N = %d", d, n)
		}
		c := outs[len(abiDTypes)]
		require.Equal(t, []int64{2 * n, 3}, c.Shape)
		x, err := modelrt.Data[float32](inputs[1])
		require.NoError(t, err)
		got, err := modelrt.Data[float32](c)
		require.NoError(t, err)
		for i := range got {
			assert.Equal(t, x[i%len(x)], got[i])
		}
	}
	// typed views and decoding
	f16, err := modelrt.NewOf(ir.F16, []int64{1, 3}, []uint16{0x3c00, 0xc000, 0x3800}) // 1, -2, 0.5
	require.NoError(t, err)
	inputs := make([]*modelrt.Tensor, len(abiDTypes))
	for k, d := range abiDTypes {
		inputs[k], _ = modelrt.Zeros(d, []int64{1, 3})
	}
	inputs[2] = f16
	outs, err := m.Run(context.Background(), inputs...)
	require.NoError(t, err)
	vals, err := outs[2].Float64s()
	require.NoError(t, err)
	assert.Equal(t, []float64{1, -2, 0.5}, vals)
	_, err = modelrt.Data[float32](outs[2])
	assert.ErrorContains(t, err, "f16 elements are 2 bytes")
}

// TestWeightsFile loads a module compiled with --weights with its mapped weights file, and
// refuses a missing, truncated or foreign one.
func TestWeightsFile(t *testing.T) {
	dir := t.TempDir()
	src := `graph @main_graph[N](%x: f32[N, 4]) {
  %w = constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0]> : f32[4, 3]
  %y = matmul(%x, %w) : f32[N, 3]
  return %y
}
`
	wpath := filepath.Join(dir, "w.bin")
	lib := buildLib(t, dir, "w", src, graphc.WithWeightsFile(wpath))
	_, err := modelrt.Load(lib)
	assert.ErrorContains(t, err, "pass modelrt.WithWeights(FILE)")
	m, err := modelrt.Load(lib, modelrt.WithWeights(wpath))
	require.NoError(t, err)
	defer m.Close()
	require.NotNil(t, m.Signature().Weights)
	x := modelrt.New([]int64{2, 4}, []float32{1, 0, 0, 0, 0, 1, 1, 1})
	outs, err := m.Run(context.Background(), x)
	require.NoError(t, err)
	y, err := modelrt.Data[float32](outs[0])
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4 + 7 + 10, 5 + 8 + 11, 6 + 9 + 12}, y)

	// another module's weights file: same size, another fingerprint
	data, err := os.ReadFile(wpath)
	require.NoError(t, err)
	bad := append([]byte{}, data...)
	bad[16] ^= 1
	badPath := filepath.Join(dir, "bad.bin")
	require.NoError(t, os.WriteFile(badPath, bad, 0o644))
	_, err = modelrt.Load(lib, modelrt.WithWeights(badPath))
	assert.ErrorIs(t, err, modelrt.ErrWeights)
	assert.ErrorContains(t, err, "is not the weights file of this module")
	require.NoError(t, os.WriteFile(badPath, data[:len(data)-1], 0o644))
	_, err = modelrt.Load(lib, modelrt.WithWeights(badPath))
	assert.ErrorIs(t, err, modelrt.ErrWeights)
	_, err = modelrt.Load(lib, modelrt.WithWeights(filepath.Join(dir, "missing.bin")))
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// TestBadInputs: every wrong input is an error naming the input and what was expected, and
// the entry's status codes come back as StatusErrors.
func TestBadInputs(t *testing.T) {
	src := `graph @main_graph[N](%a: f32[N, 2], %b: f32[N, 2], %idx: i64[3], %p: i32[4], %q: i32[4]) {
  %s = add(%a, %b) : f32[N, 2]
  %g = gather(%a, %idx) {axis = 1} : f32[N, 3]
  %d = div(%p, %q) : i32[4]
  return %s, %g, %d
}
`
	lib := buildLib(t, t.TempDir(), "bad", src)
	m, err := modelrt.Load(lib)
	require.NoError(t, err)
	defer m.Close()
	ctx := context.Background()
	a := modelrt.New([]int64{2, 2}, []float32{1, 2, 3, 4})
	b := modelrt.New([]int64{2, 2}, []float32{10, 20, 30, 40})
	idx := modelrt.New([]int64{3}, []int64{1, 0, -1})
	p := modelrt.New([]int64{4}, []int32{7, -7, 9, 1})
	q := modelrt.New([]int64{4}, []int32{2, 2, 3, 1})
	outs, err := m.Run(ctx, a, b, idx, p, q)
	require.NoError(t, err)
	g, _ := modelrt.Data[float32](outs[1])
	assert.Equal(t, []float32{2, 1, 2, 4, 3, 4}, g)
	d, _ := modelrt.Data[int32](outs[2])
	assert.Equal(t, []int32{3, -3, 3, 1}, d)

	for _, tc := range []struct {
		name   string
		inputs []*modelrt.Tensor
		want   string
	}{
		{"count", []*modelrt.Tensor{a, b}, "2 inputs given, main_graph takes 5 (a, b, idx, p, q)"},
		{"nil", []*modelrt.Tensor{a, nil, idx, p, q}, `input "b" (in1) is nil`},
		{"dtype", []*modelrt.Tensor{a, modelrt.New([]int64{2, 2}, []float64{1, 2, 3, 4}), idx, p, q}, `input "b" (in1) is f64, the model takes f32[N, 2]`},
		{"rank", []*modelrt.Tensor{modelrt.New([]int64{4}, []float32{1, 2, 3, 4}), b, idx, p, q}, `input "a" (in0) has shape [4] (rank 1), the model takes f32[N, 2] (rank 2)`},
		{"extent", []*modelrt.Tensor{a, modelrt.New([]int64{1, 2}, []float32{1, 2}), idx, p, q}, `input "b" (in1) has shape [1 2], the model's is [N, 2] = [2 2]`},
		{"static extent", []*modelrt.Tensor{a, b, modelrt.New([]int64{2}, []int64{0, 0}), p, q}, `input "idx" (in2) has shape [2], the model's is [3]`},
		{"short data", []*modelrt.Tensor{a, modelrt.New([]int64{2, 2}, []float32{1, 2, 3}), idx, p, q}, `input "b" (in1) holds 12 bytes, its shape [2 2] of f32 needs 16`},
	} {
		_, err := m.Run(ctx, tc.inputs...)
		assert.ErrorIs(t, err, modelrt.ErrInput, tc.name)
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
	_, err = m.Run(ctx, a, b, modelrt.New([]int64{3}, []int64{0, 2, 0}), p, q)
	var se *modelrt.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int32(2), se.Status)
	assert.ErrorIs(t, err, modelrt.ErrIndex)
	_, err = m.Run(ctx, a, b, idx, p, modelrt.New([]int64{4}, []int32{1, 0, 1, 1}))
	assert.ErrorIs(t, err, modelrt.ErrDivZero)
	assert.ErrorContains(t, err, "main_graph returned status 3: integer division by zero")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = m.Run(cctx, a, b, idx, p, q)
	assert.ErrorIs(t, err, context.Canceled)

	outs2 := []*modelrt.Tensor{outs[0], outs[1], modelrt.New([]int64{4}, []float32{0, 0, 0, 0})}
	err = m.RunInto(ctx, []*modelrt.Tensor{a, b, idx, p, q}, outs2)
	assert.ErrorContains(t, err, `output "d" (out2) is f32, the model's is i32[4]`)

	require.NoError(t, m.Close())
	_, err = m.Run(ctx, a, b, idx, p, q)
	assert.ErrorIs(t, err, modelrt.ErrClosed)

	_, err = modelrt.Load(filepath.Join(t.TempDir(), "none.so"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	notLib := filepath.Join(t.TempDir(), "x.so")
	require.NoError(t, os.WriteFile(notLib, []byte("not an ELF file"), 0o644))
	_, err = modelrt.Load(notLib)
	assert.Error(t, err)
}

// TestConcurrentCalls runs one module from many goroutines at once, each with its own batch
// size (so its own workspace size) and data, and checks every result against the reference
// same arithmetic done in Go (small integers: every sum is exact).
func TestConcurrentCalls(t *testing.T) {
	src := `graph @main_graph[N](%x: f32[N, 16], %w: f32[16, 16]) {
  %h = matmul(%x, %w) : f32[N, 16]
  %k = matmul(%h, %w) : f32[N, 16]
  %s = reduce_sum(%k) {axes = [0], keepdims = 0} : f32[16]
  return %s, %k
}
`
	lib := buildLib(t, t.TempDir(), "conc", src)
	m, err := modelrt.Load(lib)
	require.NoError(t, err)
	defer m.Close()
	ws, err := m.WorkspaceSize(map[string]int64{"N": 8})
	require.NoError(t, err)
	require.Positive(t, ws, "the test needs a module with a workspace")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for call := 0; call < 25; call++ {
				n := 1 + r.IntN(12)
				x, w := make([]float32, n*16), make([]float32, 256)
				for i := range x {
					x[i] = float32(r.IntN(9) - 4) // small integers: every sum is exact
				}
				for i := range w {
					w[i] = float32(r.IntN(5) - 2)
				}
				outs, err := m.Run(context.Background(), modelrt.New([]int64{int64(n), 16}, x), modelrt.New([]int64{16, 16}, w))
				if err != nil {
					errs <- err
					return
				}
				s, _ := modelrt.Data[float32](outs[0])
				h := make([]float32, n*16)
				for i := 0; i < n; i++ {
					for j := 0; j < 16; j++ {
						for k := 0; k < 16; k++ {
							h[i*16+j] += x[i*16+k] * w[k*16+j]
						}
					}
				}
				for j := 0; j < 16; j++ {
					var want float32
					for i := 0; i < n; i++ {
						for k := 0; k < 16; k++ {
							want += h[i*16+k] * w[k*16+j]
						}
					}
					if s[j] != want {
						errs <- fmt.Errorf("goroutine %d call %d (N = %d): s[%d] = %g, want %g", g, call, n, j, s[j], want)
						return
					}
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestStatusErrorUnwrap maps every status code to its error.
func TestStatusErrorUnwrap(t *testing.T) {
	for code, want := range map[int32]error{1: modelrt.ErrDims, 2: modelrt.ErrIndex, 3: modelrt.ErrDivZero, 4: modelrt.ErrWeights, 9: modelrt.ErrStatus} {
		err := error(&modelrt.StatusError{Entry: "f", Status: code, Dims: "T = 2000", Requires: "T <= 1024"})
		assert.True(t, errors.Is(err, want), "status %d", code)
	}
	assert.Equal(t, "modelrt: f returned status 1: a symbolic dim is negative or breaks a requirement of the model (T = 2000; the model requires T <= 1024)",
		(&modelrt.StatusError{Entry: "f", Status: 1, Dims: "T = 2000", Requires: "T <= 1024"}).Error())
}

// TestOutputsBeyondMemory: inputs whose outputs could not be allocated (an outer product of
// two million-element vectors: 4 TB) are an error, not a crash.
func TestOutputsBeyondMemory(t *testing.T) {
	lib := buildLib(t, t.TempDir(), "outer", `graph @main_graph[N](%a: f32[N, 1], %b: f32[1, N]) {
  %y = matmul(%a, %b) : f32[N, N]
  return %y
}
`)
	m, err := modelrt.Load(lib)
	require.NoError(t, err)
	defer m.Close()
	const n = 1 << 20
	a, b := make([]float32, n), make([]float32, n)
	_, err = m.Run(context.Background(), modelrt.New([]int64{n, 1}, a), modelrt.New([]int64{1, n}, b))
	assert.ErrorIs(t, err, modelrt.ErrInput)
	assert.ErrorContains(t, err, `for N = 1048576 the outputs take more than the machine's`)
	outs, err := m.Run(context.Background(), modelrt.New([]int64{2, 1}, []float32{1, 2}), modelrt.New([]int64{1, 2}, []float32{3, 4}))
	require.NoError(t, err)
	y, _ := modelrt.Data[float32](outs[0])
	assert.Equal(t, []float32{3, 4, 6, 8}, y)
}

// TestLibm: a module that calls libm (floor on plain x86-64, without SSE4.1's roundsd) names
// libm in its library, so that dlopen resolves it in a process that does not link libm.
func TestLibm(t *testing.T) {
	lib := buildLib(t, t.TempDir(), "floor", `graph @main_graph(%x: f64[4]) {
  %y = floor(%x) : f64[4]
  return %y
}
`)
	f, err := elf.Open(lib)
	require.NoError(t, err)
	syms, err := f.ImportedSymbols()
	require.NoError(t, err)
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	f.Close()
	for _, s := range syms {
		if s.Name == "floor" {
			assert.Contains(t, libs, "libm.so.6")
		}
	}
	m, err := modelrt.Load(lib)
	require.NoError(t, err)
	defer m.Close()
	outs, err := m.Run(context.Background(), modelrt.New([]int64{4}, []float64{1.5, -1.5, 2, -0.25}))
	require.NoError(t, err)
	y, _ := modelrt.Data[float64](outs[0])
	assert.Equal(t, []float64{1, -2, 2, -1}, y)
}
