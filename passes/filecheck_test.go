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

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/passes"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/passes/*/*.golden")

// A pass test file (testdata/passes/<pass>/*.graph) holds cases separated by "// -----". The
// file's first line is "// RUN: <flags>" with the flags of `graphc --emit=ir` that apply
// (--pipeline=, --require=, --report-dead); a case may override it with its own RUN line. The
// output (the printed graph, then the dead-space report with --report-dead, then warnings) is
// matched against the case's CHECK lines (CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT; {{regex}}
// inside a pattern). `// expected-warning {{text}}` asserts a diagnostic containing text. When
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
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "// RUN:") {
			return strings.TrimSpace(strings.TrimPrefix(l, "// RUN:"))
		}
	}
	return ""
}

// splitArgs splits a RUN line like a shell (single and double quotes).
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	quote := byte(0)
	has := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, has = c, true
		case c == ' ' || c == '\t':
			if has || cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteByte(c)
		}
	}
	if has || cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func runCase(c, run string) (string, error) {
	g, err := ir.Parse(c)
	if err != nil {
		return "", fmt.Errorf("parse: %w", err)
	}
	pipeline := passes.DefaultPipeline
	var requires []string
	reportDead, noZeroSkip := false, false
	for _, a := range splitArgs(run) {
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
	return out, nil
}

// pattern compiles a CHECK pattern: literal text with {{regex}} pieces.
func pattern(p string) *regexp.Regexp {
	var sb strings.Builder
	for {
		i := strings.Index(p, "{{")
		if i < 0 {
			sb.WriteString(regexp.QuoteMeta(p))
			break
		}
		j := strings.Index(p[i:], "}}")
		if j < 0 {
			sb.WriteString(regexp.QuoteMeta(p))
			break
		}
		sb.WriteString(regexp.QuoteMeta(p[:i]))
		sb.WriteString("(?:" + p[i+2:i+j] + ")")
		p = p[i+j+2:]
	}
	return regexp.MustCompile(sb.String())
}

func check(c, out string) error {
	lines := strings.Split(out, "\n")
	line, col := 0, 0 // position after the last match
	var nots []*regexp.Regexp
	for _, l := range strings.Split(c, "\n") {
		l = strings.TrimSpace(l)
		if m := regexp.MustCompile(`^// expected-warning \{\{(.*)\}\}$`).FindStringSubmatch(l); m != nil {
			if !strings.Contains(out, "warning: ") || !strings.Contains(out, m[1]) {
				return fmt.Errorf("expected a warning containing %q", m[1])
			}
			continue
		}
		m := regexp.MustCompile(`^// (CHECK(?:-NEXT|-SAME|-NOT|-LABEL)?): ?(.*)$`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		kind, re := m[1], pattern(m[2])
		switch kind {
		case "CHECK-NOT":
			nots = append(nots, re)
			continue
		case "CHECK-SAME":
			if line >= len(lines) {
				return fmt.Errorf("CHECK-SAME %q: no previous match", m[2])
			}
			loc := re.FindStringIndex(lines[line][col:])
			if loc == nil {
				return fmt.Errorf("CHECK-SAME %q not found on line %q", m[2], lines[line])
			}
			col += loc[1]
			continue
		case "CHECK-NEXT":
			next := line + 1
			if next >= len(lines) || re.FindStringIndex(lines[next]) == nil {
				return fmt.Errorf("CHECK-NEXT %q does not match the line after %q", m[2], lines[min(line, len(lines)-1)])
			}
			if err := checkNots(nots, lines, line, col, next); err != nil {
				return err
			}
			nots = nil
			loc := re.FindStringIndex(lines[next])
			line, col = next, loc[1]
			continue
		}
		found := false
		for k := line; k < len(lines); k++ {
			start := 0
			if k == line {
				start = col
			}
			if loc := re.FindStringIndex(lines[k][min(start, len(lines[k])):]); loc != nil {
				if err := checkNots(nots, lines, line, col, k); err != nil {
					return err
				}
				nots = nil
				line, col, found = k, start+loc[1], true
				break
			}
		}
		if !found {
			return fmt.Errorf("%s %q not found after line %d", kind, m[2], line+1)
		}
	}
	return checkNots(nots, lines, line, col, len(lines))
}

func checkNots(nots []*regexp.Regexp, lines []string, fromLine, fromCol, toLine int) error {
	for _, re := range nots {
		for k := fromLine; k < toLine && k < len(lines); k++ {
			s := lines[k]
			if k == fromLine {
				s = s[min(fromCol, len(s)):]
			}
			if re.MatchString(s) {
				return fmt.Errorf("CHECK-NOT %q matched line %q", re.String(), lines[k])
			}
		}
	}
	return nil
}
