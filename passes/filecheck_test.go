package passes_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/graphc/graphc/internal/filecheck"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/passes/*/*.golden")

// A pass test file (testdata/passes/<pass>/*.graph) holds cases separated by "// -----". The
// file's first line is "// RUN: <flags>" with the flags of `graphc --emit=ir` that apply
// (--pipeline=, --require=, --report-dead); a case may override it with its own RUN line. The
// output (the printed graph, then the dead-space report with --report-dead, then warnings, then
// the cost checks' remarks) is
// matched against the case's CHECK lines (CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT; {{regex}}
// inside a pattern). `// expected-warning {{text}}` (or `expected-note`) asserts a diagnostic of that kind containing text. When
// a file has a .golden twin, the whole output of every case must equal it (-update rewrites).
func TestPassFiles(t *testing.T) {
	files, err := filepath.Glob("../testdata/passes/*/*.graph")
	if err != nil || len(files) == 0 {
		t.Fatalf("no pass test files: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimPrefix(f, "../testdata/passes/"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cases := strings.Split(string(data), "// -----")
			fileRun := runLine(cases[0])
			var all strings.Builder
			for i, c := range cases {
				run := runLine(c)
				if run == "" {
					run = fileRun
				}
				out, err := runCase(c, run)
				if err != nil {
					t.Fatalf("case %d: %v", i, err)
				}
				if err := check(c, out); err != nil {
					t.Errorf("case %d: %v\n--- output ---\n%s", i, err, out)
				}
				fmt.Fprintf(&all, "// ----- case %d: %s\n%s", i, run, out)
			}
			golden := strings.TrimSuffix(f, ".graph") + ".golden"
			if *update {
				if _, err := os.Stat(golden); err == nil {
					if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			if want, err := os.ReadFile(golden); err == nil && string(want) != all.String() {
				t.Errorf("output differs from %s (run with -update and review the diff):\n%s", golden, all.String())
			}
		})
	}
}

func runLine(c string) string {
	if rs := filecheck.RunLines(c); len(rs) > 0 {
		return rs[0]
	}
	return ""
}

func runCase(c, run string) (string, error) {
	g, err := ir.Parse(c)
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	pipeline := passes.DefaultPipeline
	var requires []string
	reportDead, noZeroSkip := false, false
	for _, a := range filecheck.SplitArgs(run) {
		switch {
		case strings.HasPrefix(a, "--pipeline="):
			pipeline = strings.TrimPrefix(a, "--pipeline=")
		case strings.HasPrefix(a, "--require="):
			requires = append(requires, strings.TrimPrefix(a, "--require="))
		case a == "--report-dead":
			reportDead = true
		case a == "--no-zero-skip":
			noZeroSkip = true
		case a == "graphc" || a == "%s" || a == "--emit=ir":
		default:
			return "", fmt.Errorf("unknown RUN argument %q", a)
		}
	}
	ps, err := passes.ParsePipeline(pipeline)
	if err != nil {
		return "", err
	}
	opts := &passes.Options{VerifyEach: true, NoZeroSkip: noZeroSkip}
	for _, r := range requires {
		rq, err := passes.ParseRequirement(g, r)
		if err != nil {
			return "", err
		}
		opts.Require = append(opts.Require, rq)
	}
	res, err := passes.Run(context.Background(), g, ps, opts)
	if err != nil {
		return "", err
	}
	out := g.String()
	if reportDead {
		out += res.State.DeadReport()
	}
	for _, d := range res.State.Diags {
		out += d.String() + "\n"
	}
	for _, r := range res.State.Remarks {
		out += r.String() + "\n"
	}
	return out, nil
}

// check matches a case's output against its expected warnings and its CHECK lines
// (internal/filecheck).
func check(c, out string) error {
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		if m := regexp.MustCompile(`^// expected-(warning|note) \{\{(.*)\}\}$`).FindStringSubmatch(l); m != nil {
			if !strings.Contains(out, m[1]+": ") || !strings.Contains(out, m[2]) {
				return fmt.Errorf("expected a %s containing %q", m[1], m[2])
			}
		}
	}
	if len(filecheck.Directives(c, "")) == 0 {
		return nil
	}
	return filecheck.Check(c, out, "")
}
