package graphc_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/onnxgen"
)

// Bounds of the hostile corpus (issue 37): every file compiles or fails cleanly within these,
// on a 2-core machine. CPU time (user + system) stands for wall time: on a shared machine the
// wall clock measures the neighbours.
const (
	hostileMaxRSS = 300 << 20
	hostileMaxCPU = 60 * time.Second
)

// hostileCorpus returns the hostile corpus as files in dir: the 2,000 nested Ifs, the
// 100,000-op chain, and the fuzz corpora of the ONNX and TensorFlow readers (FuzzImport,
// FuzzReadText), decoded from Go's corpus format.
func hostileCorpus(t *testing.T, dir string) []string {
	files := []string{filepath.Join(dir, "nested_if_2000.onnx"), filepath.Join(dir, "chain_100000.onnx")}
	require.NoError(t, onnxgen.NestedIf(2000).Write(files[0]))
	require.NoError(t, onnxgen.Chain(100000).Write(files[1]))
	for corpus, ext := range map[string]string{
		"frontend/onnx/testdata/fuzz/FuzzImport": ".onnx",
		"frontend/tf/testdata/fuzz/FuzzReadText": ".pbtxt",
	} {
		ents, err := os.ReadDir(corpus)
		require.NoError(t, err)
		for _, e := range ents {
			text, err := os.ReadFile(filepath.Join(corpus, e.Name()))
			require.NoError(t, err)
			lines := strings.Split(string(text), "\n")
			require.GreaterOrEqual(t, len(lines), 2, e.Name())
			data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
			require.NoError(t, err, e.Name())
			// each in a directory of its own: ONNX external data is read beside the model
			sub := filepath.Join(dir, filepath.Base(corpus), e.Name())
			require.NoError(t, os.MkdirAll(sub, 0o755))
			p := filepath.Join(sub, "model"+ext)
			require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
			files = append(files, p)
		}
	}
	return files
}

// TestHostileBounded compiles every file of the hostile corpus with the CLI (x86-64) and checks
// that it compiles or fails cleanly (exit 0 or 1, no panic) within hostileMaxRSS and
// hostileMaxCPU; it logs each file's figures, the largest first. It takes minutes of CPU, so it
// runs only with GRAPHC_HOSTILE=1 (make hostile).
func TestHostileBounded(t *testing.T) {
	if os.Getenv("GRAPHC_HOSTILE") == "" {
		t.Skip("set GRAPHC_HOSTILE=1 (make hostile): minutes of CPU")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "graphc")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/graphc").CombinedOutput()
	require.NoError(t, err, string(out))
	type row struct {
		name string
		cpu  time.Duration
		rss  int64
		exit int
	}
	var rows []row
	for _, p := range hostileCorpus(t, dir) {
		name, _ := filepath.Rel(dir, p)
		ctx, cancel := context.WithTimeout(context.Background(), 10*hostileMaxCPU)
		cmd := exec.CommandContext(ctx, bin, p, "-o", os.DevNull)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		runErr := cmd.Run()
		cancel()
		require.NotNil(t, cmd.ProcessState, "%s: %v", name, runErr)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		r := row{name: name, cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), rss: ru.Maxrss << 10, exit: cmd.ProcessState.ExitCode()}
		rows = append(rows, r)
		msg := stderr.String()
		require.NotContains(t, msg, "goroutine ", "%s: a panic", name)
		require.Contains(t, []int{0, 1}, r.exit, "%s: %s", name, msg)
		require.LessOrEqual(t, r.rss, int64(hostileMaxRSS), "%s: peak RSS", name)
		require.LessOrEqual(t, r.cpu, hostileMaxCPU, "%s: CPU time", name)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].cpu > rows[j].cpu })
	var sb strings.Builder
	// the figures depend on the host and its load (the collector's share grows with the load)
	fmt.Fprintf(&sb, "host: %s, %d CPUs, load average %s\n", hostCPU(), runtime.NumCPU(), hostLoad())
	fmt.Fprintf(&sb, "%-48s %9s %8s %s\n", "file", "cpu", "peak MB", "exit")
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-48s %8.2fs %8.1f %d\n", r.name, r.cpu.Seconds(), float64(r.rss)/(1<<20), r.exit)
	}
	t.Log("\n" + sb.String())
}

// hostCPU returns the host's CPU model name ("unknown" when /proc/cpuinfo does not say).
func hostCPU() string {
	text, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(text), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// hostLoad returns the 1, 5 and 15-minute load averages ("unknown" without /proc/loadavg).
func hostLoad() string {
	text, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(text)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}
