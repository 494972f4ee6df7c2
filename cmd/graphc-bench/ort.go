// This file runs onnxruntime-node: installed on first use into the cache with
// ONNXRUNTIME_NODE_INSTALL=skip (CPU only), one intra-op thread.

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

const ortVersion = "1.30.0"

type ortRunner struct{ dir string }

func newORT(cache string) (*ortRunner, error) {
	dir := filepath.Join(cache, "ort")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "onnxruntime-node")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "onnxruntime-node@"+ortVersion)
		cmd.Env = append(os.Environ(), "ONNXRUNTIME_NODE_INSTALL=skip")
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("npm install onnxruntime-node@%s: %v\n%s", ortVersion, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.js"), []byte(ortScript), 0o644); err != nil {
		return nil, err
	}
	return &ortRunner{dir: dir}, nil
}

// ortScript: node bench.js MODEL SHAPES_JSON REPS SAMPLES → median ms per run (process CPU
// time when GRAPHC_BENCH_CPUTIME=1, see -cputime).
const ortScript = `const ort = require('onnxruntime-node');
const CPU = process.env.GRAPHC_BENCH_CPUTIME === '1';
(async () => {
  const [model, shapesJSON, reps, samples] = process.argv.slice(2);
  const shapes = JSON.parse(shapesJSON);
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential'});
  const feeds = {};
  for (const [name, dims] of Object.entries(shapes)) {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = Math.random() * 2 - 1;
    feeds[name] = new ort.Tensor('float32', data, dims);
  }
  for (let i = 0; i < 3; i++) await s.run(feeds);
  const ts = [];
  for (let k = 0; k < +samples; k++) {
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    for (let i = 0; i < +reps; i++) await s.run(feeds);
    const c = process.cpuUsage(c0);
    ts.push(CPU ? (c.user + c.system) / 1e3 / +reps : Number(process.hrtime.bigint() - t0) / 1e6 / +reps);
  }
  ts.sort((a, b) => a - b);
  console.log(ts[ts.length >> 1]);
})().catch(e => { console.error(e); process.exit(1); });
`

func (o *ortRunner) time(model string, shapes map[string][]int64, minTime time.Duration, samples int) (float64, error) {
	js, _ := json.Marshal(shapes)
	run := func(reps int) (float64, error) {
		out, err := exec.Command("node", filepath.Join(o.dir, "bench.js"), model, string(js), strconv.Itoa(reps), strconv.Itoa(samples)).CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("%v\n%s", err, out)
		}
		return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	}
	first, err := run(1)
	if err != nil {
		return 0, err
	}
	reps := int(float64(minTime.Milliseconds())/max(first, 0.001)) + 1
	return run(reps)
}

// ortDataScript: node realbench.js MODEL SPEC_JSON REPS SAMPLES OUTDIR → median ms per run;
// the inputs are raw little-endian files named in the spec, the outputs of the last run are
// written to OUTDIR/out_<k>.bin as float32.
const ortDataScript = `const ort = require('onnxruntime-node');
const CPU = process.env.GRAPHC_BENCH_CPUTIME === '1';
const fs = require('fs');
const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, float64: Float64Array, uint8: Uint8Array, int8: Int8Array, bool: Uint8Array};
(async () => {
  const [model, specJSON, reps, samples, outDir] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specJSON));
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential'});
  const feeds = {};
  for (const inp of spec) {
    const buf = fs.readFileSync(inp.file);
    const A = arrays[inp.type];
    const data = new A(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    feeds[inp.name] = new ort.Tensor(inp.type, inp.type === 'bool' ? Array.from(data, x => !!x) : data, inp.shape);
  }
  let res;
  for (let i = 0; i < 3; i++) res = await s.run(feeds);
  const ts = [];
  for (let k = 0; k < +samples; k++) {
    const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
    for (let i = 0; i < +reps; i++) res = await s.run(feeds);
    const c = process.cpuUsage(c0);
    ts.push(CPU ? (c.user + c.system) / 1e3 / +reps : Number(process.hrtime.bigint() - t0) / 1e6 / +reps);
  }
  s.outputNames.forEach((n, k) => {
    const f = Float32Array.from(res[n].data, Number);
    fs.writeFileSync(outDir + '/out_' + k + '.bin', Buffer.from(f.buffer));
  });
  ts.sort((a, b) => a - b);
  console.log(ts[ts.length >> 1]);
})().catch(e => { console.error(e); process.exit(1); });
`

var ortTypes = map[ir.DType]string{ir.F32: "float32", ir.F64: "float64", ir.I64: "int64", ir.I32: "int32",
	ir.U8: "uint8", ir.I8: "int8", ir.Bool: "bool"}

// timeData times the model on a data set's inputs and returns onnxruntime's outputs.
func (o *ortRunner) timeData(m *realmodel.Model, set realmodel.DataSet, dir string, minTime time.Duration, samples int) (float64, []*ir.Tensor, error) {
	if err := os.WriteFile(filepath.Join(o.dir, "realbench.js"), []byte(ortDataScript), 0o644); err != nil {
		return 0, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, nil, err
	}
	type input struct {
		Name  string  `json:"name"`
		Type  string  `json:"type"`
		Shape []int64 `json:"shape"`
		File  string  `json:"file"`
	}
	var spec []input
	for k, t := range set.Inputs {
		typ, ok := ortTypes[t.Elem]
		if !ok {
			return 0, nil, fmt.Errorf("input %d: element type %s", k, t.Elem)
		}
		f := filepath.Join(dir, fmt.Sprintf("in_%d.bin", k))
		if err := os.WriteFile(f, t.Bytes(), 0o644); err != nil {
			return 0, nil, err
		}
		spec = append(spec, input{m.InputNames[k], typ, t.Shape, f})
	}
	js, _ := json.Marshal(spec)
	specFile := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specFile, js, 0o644); err != nil {
		return 0, nil, err
	}
	run := func(reps int) (float64, error) {
		out, err := exec.Command("node", filepath.Join(o.dir, "realbench.js"), m.Path, specFile, strconv.Itoa(reps), strconv.Itoa(samples), dir).CombinedOutput()
		if err != nil {
			return 0, fmt.Errorf("%v\n%s", err, out)
		}
		return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
	}
	first, err := run(1)
	if err != nil {
		return 0, nil, err
	}
	ms, err := run(int(float64(minTime.Milliseconds())/max(first, 0.001)) + 1)
	if err != nil {
		return 0, nil, err
	}
	var outs []*ir.Tensor
	for k, w := range set.Outputs {
		raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out_%d.bin", k)))
		if err != nil {
			return 0, nil, err
		}
		t, err := ir.TensorFromBytes(ir.F32, w.Shape, raw)
		if err != nil {
			return 0, nil, fmt.Errorf("output %d: %w", k, err)
		}
		outs = append(outs, t)
	}
	return ms, outs, nil
}
