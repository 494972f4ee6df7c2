package main

// This file runs the README's other command lines (make, go, python, apt-get) as written, from
// the repository's root, as a reader would: the cheap ones directly (make demo, the go builds).
// A line too costly, or needing what a test may not take (root, the network, hours, exported
// models), is listed in readmeNotRun with the reason, and runs as a dry run instead: make -n,
// the program's -h (its flags must parse), go test's -list (the flags after -args must parse
// and the -run pattern must name a test), the script's --help, apt-get -s. Python lines
// are skipped, visibly, where /usr/bin/python3 has no torch (or onnx). The graphc lines are
// TestReadmeCommands' (readme_test.go).

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// readmeNotRun: the README lines not run as written, each with the reason (the key is the line
// without its comment). Every other line runs as written: a new costly line must come here
// with its reason, or the test runs it.
var readmeNotRun = map[string]string{
	"sudo apt-get update": "needs root and the network (a dry run cannot lock the package lists)",
	"sudo apt-get install -y clang-19 llvm-19 lld-19 qemu-user protobuf-compiler libonnx-dev libisl-dev libonnx-testdata": "needs root and the network",
	"sudo apt-get install -y python3-torch python3-torchvision python3-onnx":                                              "needs root and the network",
	"make test":          "it is the suite this test is part of",
	"make models":        "exports the model set with PyTorch: minutes of CPU and GBs of files in ~/.cache",
	"make bench-real":    "minutes of benchmarks on the exported model set, against onnxruntime",
	"make bench-profile": "minutes of profiling on an exported decoder",
	"make bench":         "tens of minutes of benchmarks against onnxruntime",
	"make bench-mem":     "compiles the whole exported model set and a 100,000-op chain (minutes)",
	"make conformance":   "the same run as internal/conformance's TestConformance in make test (minutes)",
	"make onnx-tests":    "clones the onnx repository (the network)",
	"go run ./cmd/graphc-bench -real -cputime -no-nodie -model-dir ~/.cache/graphc-models-extra":       "needs the exported extra model set and onnxruntime; minutes",
	"go run ./cmd/graphc-bench -real -cputime -model-dir ~/.cache/graphc-models-light -mcpu x86-64-v3": "needs the light model set and onnxruntime; minutes",
	"go run ./cmd/graphc-bench -real -models resnet50 -profile 20":                                     "needs the exported model set; minutes",
	"go run ./cmd/graphc-bench -convs -cputime":                                                        "the conv shape table against onnxruntime: minutes",
	"go run ./cmd/graphc-conformance -mode=x86 -v":                                                     "compiles and runs every node test: minutes",
	"go run ./cmd/graphc-conformance -mode=native":                                                     "compiles and runs every node test: minutes",
	"go run ./cmd/graphc-conformance -mode=aarch64 -mcpu=cortex-x2":                                    "compiles every node test and runs it under qemu-aarch64: tens of minutes",
	"go test ./volume -run 'Oracle|Laws' -timeout 6h -args -volume.cases=10000 -volume.seed=2":         "hours: 10,000 random cases per oracle",
	"go test ./passes -run Preserves -args -passes.graphs=30000":                                       "30,000 random graphs through every pipeline (an hour)",
	"go test ./internal/e2e -run RandomGraphs -args -e2e.graphs=4000":                                  "4,000 random graphs compiled and run (an hour)",
	"/usr/bin/python3 models/export.py --set extra":                                                    "exports a model set with PyTorch: minutes and GBs",
	"/usr/bin/python3 models/export.py --set recurrent":                                                "exports a model set with PyTorch: minutes and GBs",
	"make models-light ONNX_LIGHT=ONNX_CHECKOUT/onnx/backend/test/data/light":                          "needs a checkout of the onnx repository (ONNX_CHECKOUT) and onnxruntime",
}

// readmeOtherLines returns the README's code-block lines that run make, go, python or apt-get,
// without their comments (continuation lines joined).
func readmeOtherLines(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	var out []string
	inBlock := false
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		words, _, err := shellWords(l)
		if err != nil || len(words) < 2 {
			continue
		}
		switch words[0] {
		case "make", "go", "/usr/bin/python3", "python3", "sudo", "apt-get":
			out = append(out, strings.TrimSpace(strings.SplitN(l, " #", 2)[0]))
		}
	}
	return out
}

// runInRepo runs line with sh in the repository's root and returns its output; it fails the
// test when the line fails.
func runInRepo(t *testing.T, line string, timeout time.Duration) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = "../.."
	done := make(chan struct{})
	timer := time.AfterFunc(timeout, func() {
		if cmd.Process != nil {
			_ = cmd.Process.Kill()
		}
		close(done)
	})
	out, err := cmd.CombinedOutput()
	if !timer.Stop() {
		<-done
		t.Fatalf("%s: still running after %v\n%s", line, timeout, out)
	}
	require.NoError(t, err, "%s\n%s", line, out)
	return string(out)
}

// dryRun returns the dry run of a README line that is not run as written, or "" when there is
// none (the reason stands alone), and skips the test where the line's interpreter is missing.
func dryRun(t *testing.T, line string) string {
	t.Helper()
	words, _, err := shellWords(line)
	require.NoError(t, err)
	switch {
	case words[0] == "sudo" && len(words) > 2 && words[1] == "apt-get" && words[2] == "install":
		if _, err := exec.LookPath("apt-get"); err != nil {
			t.Skip("no apt-get on this host: not a Debian system")
		}
		return "apt-get -s " + strings.TrimPrefix(line, "sudo apt-get ") // simulate: every package is known
	case words[0] == "sudo":
		return ""
	case words[0] == "make":
		return "make -n " + strings.TrimPrefix(line, "make ")
	case words[0] == "go" && words[1] == "run":
		return line + " -h" // the flags before -h must parse; -h prints the usage and exits 0
	case words[0] == "go" && words[1] == "test":
		pat := "."
		for i, w := range words {
			if w == "-run" && i+1 < len(words) {
				pat = words[i+1]
			}
		}
		// -list before -args: the test binary lists the tests pat names, parsing every flag
		// after -args, and runs none
		list := " -list '" + pat + "'"
		if before, after, ok := strings.Cut(line, " -args "); ok {
			return before + list + " -args " + after
		}
		return line + list
	case strings.HasSuffix(words[0], "python3"):
		need := "import onnx"
		if strings.Contains(line, "export.py") {
			need = "import onnx, torch"
		}
		if err := exec.Command(words[0], "-c", need).Run(); err != nil {
			t.Skipf("%s cannot %q: the script's dry run needs it", words[0], need)
		}
		return line + " --help"
	}
	t.Fatalf("no dry run for %q: run it as written, or teach dryRun", line)
	return ""
}

// TestReadmeRunsEveryCommand runs every make, go, python and apt-get line of the README as
// written, or, for the lines of readmeNotRun, its dry run with the stated reason.
func TestReadmeRunsEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's commands build the CLI and the C library (minutes)")
	}
	lines := readmeOtherLines(t)
	require.GreaterOrEqual(t, len(lines), 25, "the README lost its make, go and python lines")
	seen := map[string]bool{}
	for _, line := range lines {
		seen[line] = true
		t.Run(line, func(t *testing.T) {
			why, skip := readmeNotRun[line]
			if !skip {
				if strings.HasPrefix(line, "make demo") {
					if _, err := exec.LookPath("clang-19"); err != nil {
						t.Skip("make demo builds with clang-19:", err)
					}
				}
				runInRepo(t, line, 15*time.Minute)
				return
			}
			t.Logf("not run as written: %s", why)
			dry := dryRun(t, line)
			if dry == "" {
				return
			}
			out := runInRepo(t, dry, 10*time.Minute)
			if strings.HasPrefix(line, "go test ") {
				// -list prints the tests the -run pattern names: at least one
				require.Regexp(t, regexp.MustCompile(`(?m)^(Test|Fuzz)\w+$`), out, "%s names no test", line)
			}
		})
	}
	for line := range readmeNotRun {
		require.True(t, seen[line], "readmeNotRun lists %q, which the README no longer has", line)
	}
}
