// This file holds the whole-module smoke tests: testdata/lower-golden/<case>.graph is lowered
// for each target and compared with <case>.<target>.ll (refresh with go test ./lower -run TestGolden
// -update). Every module is re-parsed with llir and verified with opt-19 (and opt-14) first.
// One case (matmul_trilu) is kept, to notice any change of the emitted text at all; tests of
// what a lowering decision emits are CHECK tests (testdata/lowering, filecheck_test.go), which
// say what they are about and survive unrelated changes.

package lower_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/lower-golden/*.graph")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		g, err := ir.Parse(string(data))
		require.NoError(t, err, file)
		require.NoError(t, ir.Verify(g), file)
		for _, target := range []string{"x86-64", "hexagon"} {
			name := strings.TrimSuffix(filepath.Base(file), ".graph") + "." + target
			t.Run(name, func(t *testing.T) {
				tg, err := lower.LoadTarget(target)
				require.NoError(t, err)
				mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tg})
				require.NoError(t, err)
				text := mod.String()
				verifyModule(t, text, "")
				golden := strings.TrimSuffix(file, ".graph") + "." + target + ".ll"
				if *update {
					require.NoError(t, os.WriteFile(golden, []byte(text), 0o644))
					return
				}
				want, err := os.ReadFile(golden)
				require.NoError(t, err, "run go test ./lower -run TestGolden -update")
				require.Equal(t, string(want), text, "%s differs from the golden file (review the diff and refresh with -update)", golden)
			})
		}
	}
}
