package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/lower"
)

// TestFlagMistakes: every flag mistake of issue 39 gets a message that says what is wrong and
// what to write instead, with exit status 2 (usage) or, for flags that do nothing here, a
// warning and exit 0. Nothing is written on an error.
func TestFlagMistakes(t *testing.T) {
	dir := t.TempDir()
	writeModel(t, dir, "mt.onnx", onnxgen.MatMulTrilu(4, true))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "existing_dir"), 0o755))
	pbtxt, err := os.ReadFile("../../testdata/models/tf/last_row_logits.pbtxt")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "g.pbtxt"), pbtxt, 0o644))
	cases := []struct {
		args []string
		code int
		want []string
		not  []string // must not appear (temporary file names)
	}{
		// --mattr: a sign and a feature LLVM knows for the target, with a did-you-mean
		{[]string{"mt.onnx", "--mattr=avx2"}, 2, []string{`--mattr=avx2: "avx2" needs a sign: +avx2 enables the feature, -avx2 disables it`}, nil},
		{[]string{"mt.onnx", "--mattr=+avx512"}, 2, []string{`unknown feature "avx512" for --target=x86-64 (did you mean +avx512f?)`, "-mattr=help"}, nil},
		{[]string{"mt.onnx", "--mattr=+avx2,-fma,hvx"}, 2, []string{`"hvx" needs a sign`}, nil},
		{[]string{"mt.onnx", "--mattr=+avx2,"}, 2, []string{"an empty entry"}, nil},
		{[]string{"mt.onnx", "--target=hexagon", "--mattr=+avx2"}, 2, []string{`unknown feature "avx2" for --target=hexagon`}, nil},
		{[]string{"mt.onnx", "--target=hexagon", "--mattr=-hvxx"}, 2, []string{"did you mean -hvx?"}, nil},
		{[]string{"mt.onnx", "--target=hexagon", "--mattr=+hvxv75"}, 2, []string{`unknown feature "hvxv75" for --target=hexagon (did you mean +hvxv73?)`}, nil},
		// -o: the user's path, never graphc's temporary file
		{[]string{"mt.onnx", "-o", "nodir/x.ll"}, 2, []string{"-o nodir/x.ll: directory nodir does not exist"}, []string{".tmp"}},
		{[]string{"mt.onnx", "--emit=header", "-o", "nodir/x.h"}, 2, []string{"-o nodir/x.h: directory nodir does not exist"}, nil},
		{[]string{"mt.onnx", "-o", "existing_dir"}, 2, []string{"-o existing_dir: is a directory"}, []string{".tmp", "rename"}},
		{[]string{"mt.onnx", "-o", "mt.onnx/x.ll"}, 2, []string{"-o mt.onnx/x.ll: mt.onnx is not a directory"}, nil},
		{[]string{"mt.onnx", "--weights=nodir/w.bin"}, 2, []string{"--weights=nodir/w.bin: directory nodir does not exist"}, []string{".tmp"}},
		{[]string{"mt.onnx", "--weights=existing_dir"}, 2, []string{"--weights=existing_dir: is a directory; --weights names the output file"}, []string{".tmp", "rename"}},
		// --target: targets only; CPUs go to --mcpu
		{[]string{"mt.onnx", "--target=haswell"}, 2, []string{"--target=haswell: haswell is a CPU: use --target=x86-64 --mcpu=haswell"}, nil},
		{[]string{"mt.onnx", "--target=hexagonv67"}, 2, []string{"use --target=hexagon --mcpu=hexagonv67"}, nil},
		{[]string{"mt.onnx", "--target=hexagon-v67"}, 2, []string{"hexagon-v67 is a CPU variant, not a target: use --target=hexagon --mcpu=hexagonv67 --mattr=-hvx"}, nil},
		{[]string{"mt.onnx", "--target=znver9"}, 2, []string{"--target=znver9: unknown target (targets: x86-64, aarch64, hexagon; CPUs go to --mcpu)"}, []string{"haswell", "alderlake"}},
		{[]string{"mt.onnx", "--target=hexgon"}, 2, []string{"did you mean hexagon?"}, nil},
		// exit 2 for the other flags' mistakes
		{[]string{"mt.onnx", "--entry=1bad"}, 2, []string{"--entry=1bad: the entry is a C function name"}, nil},
		{[]string{"mt.onnx", "--entry=my-model"}, 2, []string{"--entry=my-model"}, nil},
		{[]string{"mt.onnx", "--emit=svg", "--op=Q"}, 2, []string{"--op=Q: no such op; ops are: C, Y"}, nil},
		{[]string{"mt.onnx", "--emit=svg", "--op=C", "--dims=x,y"}, 2, []string{"--dims=x,y: op %C iterates over [i, j, k]"}, nil},
		// flags that do not apply
		{[]string{"mt.onnx", "--outputs=Y"}, 2, []string{"--outputs applies to TensorFlow graphs (.pb, .pbtxt)"}, nil},
		{[]string{"mt.onnx", "--op=C"}, 2, []string{"--op applies only to --emit=svg"}, nil},
		{[]string{"mt.onnx", "--dims=i,j", "--emit=plan", "-o", "-"}, 2, []string{"--dims applies only to --emit=svg"}, nil},
		{[]string{"mt.onnx", "--emit=ir", "--mcpu=znver4", "-o", "-"}, 0, []string{"warning: --mcpu has no effect with --emit=ir (nothing is lowered)"}, nil},
		{[]string{"mt.onnx", "--emit=dot", "--profile", "-o", "mt.dot"}, 0, []string{"warning: --profile has no effect with --emit=dot"}, nil},
		// -o's extension against --emit
		{[]string{"mt.onnx", "-o", "model.h"}, 0, []string{"warning: -o model.h: the extension is --emit=header's, but --emit=llvm writes LLVM IR (.ll)"}, nil},
		{[]string{"mt.onnx", "--emit=header", "-o", "model.ll"}, 0, []string{"warning: -o model.ll: the extension is --emit=llvm's, but --emit=header writes the C header (.h)"}, nil},
		// and what is right stays quiet
		{[]string{"g.pbtxt", "--outputs=logits", "-o", "g.ll"}, 0, nil, []string{"warning"}},
		{[]string{"mt.onnx", "--mcpu=haswell", "--mattr=-avx2,+fma", "-o", "ok.ll"}, 0, nil, []string{"warning"}},
		{[]string{"mt.onnx", "--target=hexagon", "--mcpu=hexagonv67", "--mattr=-hvx", "-o", "ok.ll"}, 0, nil, []string{"warning"}},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, stderr, code := runCLI(t, dir, tc.args...)
			require.Equal(t, tc.code, code, stderr)
			for _, w := range tc.want {
				require.Contains(t, stderr, w)
			}
			for _, w := range tc.not {
				require.NotContains(t, stderr, w)
			}
			if tc.code != 0 {
				require.NoFileExists(t, filepath.Join(dir, "mt.ll"), "nothing is written on an error")
			}
		})
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	require.Empty(t, tmps, "no temporary file is left behind")
}

// TestFeatureLists: features/<target>.txt are LLVM 19's feature names for the target, as llc-19
// lists them (go test ./cmd/graphc -run TestFeatureLists -update rewrites them).
func TestFeatureLists(t *testing.T) {
	llc, err := exec.LookPath("llc-19")
	if err != nil {
		t.Skip("llc-19 not installed: the feature lists are not compared with LLVM's")
	}
	for _, target := range cliTargets {
		tg, err := lower.LoadTarget(target)
		require.NoError(t, err)
		out, _ := exec.Command(llc, "-mtriple="+tg.Triple, "-mattr=help").CombinedOutput()
		text := string(out)
		_, text, ok := strings.Cut(text, "Available features for this target:")
		require.True(t, ok, "llc-19 -mattr=help:\n%s", out)
		var names []string
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "  ") && len(strings.TrimSpace(l)) > 0 {
				names = append(names, strings.Fields(l)[0])
			}
		}
		want := strings.Join(names, "\n") + "\n"
		path := filepath.Join("features", target+".txt")
		if *update {
			require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		}
		have, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, want, string(have), "%s is stale: go test ./cmd/graphc -run TestFeatureLists -update", path)
		// every feature a CPU spec of the target turns on or off is one LLVM knows
		for _, c := range tg.CPUs() {
			for _, f := range strings.Split(c.Features+","+c.ImpliedFeatures, ",") {
				if f = strings.TrimLeft(strings.TrimSpace(f), "+-"); f != "" {
					require.Contains(t, names, f, "%s's feature %s", c.Name, f)
				}
			}
		}
	}
}
