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

// ortScript: node bench.js MODEL SHAPES_JSON REPS SAMPLES → median ms per run.
const ortScript = `const ort = require('onnxruntime-node');
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
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < +reps; i++) await s.run(feeds);
    ts.push(Number(process.hrtime.bigint() - t0) / 1e6 / +reps);
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
