package realmodel_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/lower"
)

// TestTinyModelsThreads compiles every committed PyTorch export (CNN, transformers, decoders
// with dynamic axes) with every kernel that can be split split into its smallest chunks
// (lower.Config.SplitAll), runs each data set on the default pool at 1, 2, 3 and 4 threads
// and requires PyTorch's values and the same output bits at every thread count.
func TestTinyModelsThreads(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	names, err := realmodel.List(tinyDir)
	require.NoError(t, err)
	require.NotEmpty(t, names)
	tgt, err := lower.LoadTarget("x86-64")
	require.NoError(t, err)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			m, err := realmodel.Load(tinyDir, name)
			require.NoError(t, err)
			res, err := graphc.Compile(ctx, m.Path, graphc.WithoutLowering())
			require.NoError(t, err)
			mod, err := lower.Lower(ctx, res.Graph, lower.Config{Target: tgt, Threads: lower.ThreadsPool, SplitAll: true})
			require.NoError(t, err)
			tasks := 0
			for _, f := range mod.LLVM.Funcs {
				if strings.HasSuffix(f.Name(), ".task") {
					tasks++
				}
			}
			require.Positive(t, tasks, "split kernels")
			prog, err := e2e.Build(ctx, t.TempDir(), res.Graph, mod)
			require.NoError(t, err)
			var first [][]byte
			for _, threads := range []int{1, 2, 3, 4} {
				t.Setenv("GRAPHC_NUM_THREADS", fmt.Sprint(threads))
				_, err = realmodel.CheckSets(ctx, m, res.Graph, prog, m.Tolerance())
				require.NoError(t, err, "%d threads", threads)
				// the bits of the last data set's outputs (CheckSets ran it last)
				var outs [][]byte
				for k := range res.Graph.Outputs {
					b, err := os.ReadFile(fmt.Sprintf("%s/io/out%d.bin", prog.Dir, k))
					require.NoError(t, err)
					outs = append(outs, b)
				}
				if first == nil {
					first = outs
					continue
				}
				for k := range outs {
					require.True(t, bytes.Equal(first[k], outs[k]), "output %d at %d threads differs from 1 thread", k, threads)
				}
			}
			t.Logf("%d split kernels", tasks)
		})
	}
}
