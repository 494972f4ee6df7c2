package graphc_test

// This file compares a YOLO-style detection head with NonMaxSuppression
// (testdata/bounded/yolo_head.py, built with onnx.helper) compiled by graphc with onnxruntime:
// identical selected (batch, class, box) triples and counts, boxes and scores within the
// tolerance of the compiled transcendental functions, as x86-64 code and as Hexagon v67 code
// under qemu. It needs /usr/bin/python3 with onnx, node
// and onnxruntime-node in graphc-bench's cache (installed by `graphc-bench` on first use);
// without them it skips.

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

// ortRunScript: node run.js MODEL INPUT.bin → the outputs as JSON {name: {dims, data}}.
const ortRunScript = `const ort = require('onnxruntime-node');
const fs = require('fs');
(async () => {
  const [model, input] = process.argv.slice(2);
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1});
  const buf = fs.readFileSync(input);
  const x = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  const out = await s.run({F: new ort.Tensor('float32', x, [1, 16, 6, 8])});
  const res = {};
  for (const [k, t] of Object.entries(out)) res[k] = {dims: t.dims, data: Array.from(t.data, Number)};
  console.log(JSON.stringify(res));
})().catch(e => { console.error(e); process.exit(1); });
`

func TestYOLOHeadMatchesORT(t *testing.T) {
	if _, err := e2e.Clang(); err != nil {
		t.Skip(err)
	}
	home, _ := os.UserHomeDir()
	ortDir := filepath.Join(home, ".cache", "graphc-bench", "ort", "node_modules")
	if _, err := os.Stat(filepath.Join(ortDir, "onnxruntime-node")); err != nil {
		t.Skip("onnxruntime-node is not installed (graphc-bench installs it on first use)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip(err)
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import onnx").Run(); err != nil {
		t.Skip("/usr/bin/python3 with onnx is needed to build the model")
	}
	ctx := context.Background()
	dir := t.TempDir()
	script := filepath.Join(dir, "run.js")
	require.NoError(t, os.WriteFile(script, []byte(ortRunScript), 0o644))
	r := rand.New(rand.NewPCG(35, 4))
	for _, tc := range []struct {
		name, center, threshold string
		scale                   float64
	}{
		{"centre_size", "1", "0.98", 1}, // some classes keep fewer than their limit
		{"corners", "0", "0.98", 1},
		{"many_candidates", "1", "0.3", 1}, // the IoU test decides which boxes fill the limits
		{"flat_input", "1", "0.3", 0},      // every cell alike: each class keeps its limit (the bound)
		{"nothing_passes", "0", "1", 1},    // no score above 1: no box survives
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := filepath.Join(dir, tc.name+".onnx")
			out, err := exec.Command("/usr/bin/python3", "testdata/bounded/yolo_head.py", model, tc.center, tc.threshold).CombinedOutput()
			require.NoError(t, err, string(out))
			res, err := graphc.Compile(ctx, model)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, tc.name), 0o755))
			prog, err := e2e.Build(ctx, filepath.Join(dir, tc.name), res.Graph, res.Module)
			require.NoError(t, err)
			counts := map[int64]bool{}
			type ortOut = map[string]struct {
				Dims []int64
				Data []float64
			}
			check := func(what string, trial int, want ortOut, got []*ir.Tensor) {
				sel := want["selected"]
				n := got[3].I[0]
				counts[n] = true
				require.Equal(t, sel.Dims[0], n, "%s trial %d: the count", what, trial)
				require.Equal(t, []int64{n, 3}, got[0].Shape)
				for i, v := range sel.Data {
					require.Equal(t, int64(v), got[0].I[i], "%s trial %d: selected[%d]", what, trial, i)
				}
				for k, name := range []string{"sel_boxes", "sel_scores"} {
					w := want[name]
					wt := ir.NewTensor(ir.F32, w.Dims)
					copy(wt.F, w.Data)
					require.NoError(t, e2e.Compare(got[1+k], wt, 1e-5, 1e-5, nil), "%s trial %d: %s", what, trial, name)
				}
			}
			var cases []*e2e.Case
			var wants []ortOut
			for trial := range 4 {
				f := e2e.RandomTensor(r, ir.F32, []int64{1, 16, 6, 8})
				for i := range f.F {
					f.F[i] = float64(float32(f.F[i] * 3 * tc.scale))
				}
				in := filepath.Join(dir, tc.name+".bin")
				require.NoError(t, os.WriteFile(in, f.Bytes(), 0o644))
				cmd := exec.Command(node, script, model, in)
				cmd.Env = append(os.Environ(), "NODE_PATH="+ortDir)
				js, err := cmd.Output()
				require.NoError(t, err)
				var want ortOut
				require.NoError(t, json.Unmarshal(js, &want))
				got, _, err := prog.Run(ctx, []*ir.Tensor{f}, nil, 1)
				require.NoError(t, err)
				check("x86-64", trial, want, got)
				cases = append(cases, &e2e.Case{Graph: res.Graph, Inputs: []*ir.Tensor{f}})
				wants = append(wants, want)
			}
			// the module for Hexagon v67 (scalar), under qemu
			m := e2e.HexagonScalar()
			hp, err := e2e.BuildBatch(ctx, filepath.Join(dir, tc.name, "hexagon"), m, cases)
			require.NoError(t, err)
			if e2e.CanRun(t, m) {
				for i, r := range hp.Run(ctx) {
					require.NoError(t, r.Err)
					require.Zero(t, r.Status)
					check(m.String(), i, wants[i], r.Outputs)
				}
			}
			t.Logf("%s: counts %v (bound %d)", tc.name, counts, res.Graph.Bounded[0].Bound)
		})
	}
}
