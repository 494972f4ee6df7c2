package lower_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestModuleWriteFileStreams: Module.WriteFile writes the module's text (here 1M weights,
// about 9 MB of text) while allocating a small fraction of it, never the whole text: VGG-11's
// 531 MB of weights print as 1.18 GB, which os.WriteFile(path, []byte(m.String())) held twice
// in the heap. The file holds exactly String's text.
func TestModuleWriteFileStreams(t *testing.T) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(3, 5))
	g := ir.NewGraph("g")
	x := g.AddInput("x", ir.StaticType(ir.F32, n))
	w := ir.NewTensor(ir.F32, []int64{n})
	for i := range w.F {
		w.F[i] = ir.RoundFloat(ir.F32, r.NormFloat64())
	}
	op, err := g.NewOp("add", "a", []*ir.Value{x, g.AddConst("w", w)}, nil)
	require.NoError(t, err)
	g.Outputs = []*ir.Value{op.Result}
	require.NoError(t, ir.Verify(g))
	tg, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tg})
	require.NoError(t, err)

	path := filepath.Join(t.TempDir(), "m.ll")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	require.NoError(t, mod.WriteFile(path))
	runtime.ReadMemStats(&after)
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(3*n), "the weights' text")
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("WriteFile allocated %d bytes for %d bytes of text", alloc, st.Size())
	require.Less(t, alloc, uint64(st.Size()/4), "WriteFile allocated %d bytes for %d bytes of text", alloc, st.Size())

	text, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, mod.String(), string(text))
}
