// This file runs onnxruntime-node: installed on first use into the cache with
// ONNXRUNTIME_NODE_INSTALL=skip (CPU only), one intra-op thread.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/graphc/graphc/internal/ortref"
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
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: +(process.env.GRAPHC_BENCH_ORT_THREADS || 1), interOpNumThreads: 1, executionMode: 'sequential'});
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

// ortSessionScript: node realsession.js MODEL SPEC_JSON OUTDIR keeps one session open and
// answers the lines of its standard input: "run REPS" times REPS calls on the data set's inputs
// (the inputs are raw little-endian files named in the spec) and prints ms per call; "out"
// writes the outputs of the last call to OUTDIR/out_<k>.bin as float32 and prints "ok". So
// that graphc and onnxruntime run under the same load, -real alternates their samples.
const ortSessionScript = `const ort = require('onnxruntime-node');
const CPU = process.env.GRAPHC_BENCH_CPUTIME === '1';
const fs = require('fs');
const readline = require('readline');
// ticks returns the CPU ticks (utime + stime, 100 per second) of each thread of the process
function ticks() {
  const m = new Map();
  for (const t of fs.readdirSync('/proc/self/task')) {
    try {
      const st = fs.readFileSync('/proc/self/task/' + t + '/stat', 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      m.set(+t, +f[11] + +f[12]);
    } catch (e) {}
  }
  return m;
}
const arrays = {float32: Float32Array, int64: BigInt64Array, int32: Int32Array, float64: Float64Array, uint8: Uint8Array, int8: Int8Array, int16: Int16Array, uint16: Uint16Array, bool: Uint8Array};
(async () => {
  const [model, specJSON, outDir] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specJSON));
  const s = await ort.InferenceSession.create(model, {intraOpNumThreads: +(process.env.GRAPHC_BENCH_ORT_THREADS || 1), interOpNumThreads: 1, executionMode: 'sequential'});
  const feeds = {};
  for (const inp of spec) {
    const buf = fs.readFileSync(inp.file);
    const A = arrays[inp.type];
    const data = new A(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    feeds[inp.name] = new ort.Tensor(inp.type, inp.type === 'bool' ? Array.from(data, x => !!x) : data, inp.shape);
  }
  let res;
  for (let i = 0; i < 3; i++) res = await s.run(feeds);
  console.log('ready');
  for await (const line of readline.createInterface({input: process.stdin})) {
    const [cmd, arg] = line.trim().split(' ');
    if (cmd === 'run') {
      const reps = +arg;
      const k0 = ticks();
      const t0 = process.hrtime.bigint(), c0 = process.cpuUsage();
      for (let i = 0; i < reps; i++) res = await s.run(feeds);
      const c = process.cpuUsage(c0);
      const k1 = ticks();
      // the CPU time of each thread that ran (ms per call, 10 ms ticks): the calling thread
      // first, then the others, most first
      const split = [];
      for (const [tid, t] of k1) {
        const d = t - (k0.get(tid) || 0);
        if (d > 0 || tid === process.pid) split.push([tid === process.pid ? Infinity : d, d * 10 / reps]);
      }
      split.sort((a, b) => b[0] - a[0]);
      console.log([CPU ? (c.user + c.system) / 1e3 / reps : Number(process.hrtime.bigint() - t0) / 1e6 / reps, ...split.map(x => x[1])].join(' '));
    } else if (cmd === 'out') {
      s.outputNames.forEach((n, k) => {
        const f = Float32Array.from(res[n].data, Number);
        fs.writeFileSync(outDir + '/out_' + k + '.bin', Buffer.from(f.buffer));
      });
      console.log('ok');
    }
  }
})().catch(e => { console.error(e); process.exit(1); });
`

// ortSession is one onnxruntime session on a data set's inputs, kept open in a node process.
type ortSession struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *strings.Builder
	dir    string
	shapes [][]int64
}

// open starts a session of m on set's inputs (files under dir).
func (o *ortRunner) open(m *realmodel.Model, set realmodel.DataSet, dir string) (*ortSession, error) {
	if err := os.WriteFile(filepath.Join(o.dir, "realsession.js"), []byte(ortSessionScript), 0o644); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	specFile, err := ortref.WriteInputs(dir, m.InputNames, set.Inputs)
	if err != nil {
		return nil, err
	}
	s := &ortSession{dir: dir, stderr: &strings.Builder{}}
	for _, w := range set.Outputs {
		s.shapes = append(s.shapes, w.Shape)
	}
	s.cmd = exec.Command("node", filepath.Join(o.dir, "realsession.js"), m.Path, specFile, dir)
	s.cmd.Stderr = s.stderr
	if s.in, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.out = bufio.NewScanner(stdout)
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	if _, err := s.reply(); err != nil { // "ready": the session is created and warm
		s.close()
		return nil, err
	}
	return s, nil
}

// reply reads one line of the session's answer.
func (s *ortSession) reply() (string, error) {
	if !s.out.Scan() {
		return "", fmt.Errorf("onnxruntime session ended: %s", strings.TrimSpace(s.stderr.String()))
	}
	return s.out.Text(), nil
}

// sample times reps calls and returns ms per call.
func (s *ortSession) sample(reps int) (float64, []float64, error) {
	if _, err := fmt.Fprintf(s.in, "run %d\n", reps); err != nil {
		return 0, nil, err
	}
	line, err := s.reply()
	if err != nil {
		return 0, nil, err
	}
	f := strings.Fields(line)
	if len(f) == 0 {
		return 0, nil, fmt.Errorf("onnxruntime: empty reply")
	}
	ms, err := strconv.ParseFloat(f[0], 64)
	var split []float64
	for _, x := range f[1:] {
		t, _ := strconv.ParseFloat(x, 64)
		split = append(split, t)
	}
	return ms, split, err
}

// outputs returns the outputs of the last call.
func (s *ortSession) outputs() ([]*ir.Tensor, error) {
	if _, err := fmt.Fprintln(s.in, "out"); err != nil {
		return nil, err
	}
	if _, err := s.reply(); err != nil {
		return nil, err
	}
	var outs []*ir.Tensor
	for k, shape := range s.shapes {
		raw, err := os.ReadFile(filepath.Join(s.dir, fmt.Sprintf("out_%d.bin", k)))
		if err != nil {
			return nil, err
		}
		t, err := ir.TensorFromBytes(ir.F32, shape, raw)
		if err != nil {
			return nil, fmt.Errorf("output %d: %w", k, err)
		}
		outs = append(outs, t)
	}
	return outs, nil
}

// close ends the session's process.
func (s *ortSession) close() {
	s.in.Close()
	_ = s.cmd.Wait()
}
