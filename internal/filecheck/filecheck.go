// Package filecheck matches a tool's output against FileCheck-style directives written in the
// comments of a test input, as LLVM's FileCheck does, for the pass tests (testdata/passes) and
// the lowering tests (testdata/lowering). Directives are comment lines:
//
//	// RUN: graphc --target=hexagon --emit=llvm %s
//	// CHECK: define internal i32 @main_graph.k0.add
//	// CHECK-NEXT: entry:
//	// CHECK-SAME: noalias
//	// CHECK-NOT: call
//	// CHECK-LABEL: define i32 @main_graph(
//
// A pattern is literal text with {{regex}} pieces; [[NAME:regex]] matches regex and names what
// it matched, and [[NAME]] in a later directive matches that text again (a numbered temporary is checked as
// "[[X:%[0-9]+]] = fadd" and then "store float [[X]]", not pinned to its number). CHECK finds the pattern at or after the end
// of the previous match; CHECK-NEXT on the line after it; CHECK-SAME later on the same line;
// CHECK-NOT asserts the pattern does not occur between the previous match and the next one (or
// the end of the output); CHECK-LABEL is a CHECK. Another prefix (PLAN:, PLAN-NEXT:, ...)
// selects the directives a RUN line names with --check-prefix=PLAN.
package filecheck

import (
	"fmt"
	"regexp"
	"strings"
)

// RunLines returns the arguments of the "// RUN:" lines of src, in order.
func RunLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "// RUN:") {
			out = append(out, strings.TrimSpace(strings.TrimPrefix(l, "// RUN:")))
		}
	}
	return out
}

// SplitArgs splits a RUN line like a shell (single and double quotes).
func SplitArgs(s string) []string {
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

// Pattern compiles a CHECK pattern: literal text with {{regex}} pieces (no variables).
func Pattern(p string) (*regexp.Regexp, error) { return compile(p, nil) }

// varName is what a FileCheck variable may be called.
var varName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// compile compiles a pattern: literal text with {{regex}} pieces, [[NAME:regex]] pieces that
// match regex and define the variable NAME (a capture group named NAME), and [[NAME]] pieces
// that match the text a previous directive captured for NAME (vars).
func compile(p string, vars map[string]string) (*regexp.Regexp, error) {
	var sb strings.Builder
	orig := p
	for {
		i, j := strings.Index(p, "{{"), strings.Index(p, "[[")
		if i < 0 && j < 0 {
			sb.WriteString(regexp.QuoteMeta(p))
			break
		}
		if i >= 0 && (j < 0 || i < j) {
			k := strings.Index(p[i:], "}}")
			if k < 0 {
				sb.WriteString(regexp.QuoteMeta(p))
				break
			}
			sb.WriteString(regexp.QuoteMeta(p[:i]))
			sb.WriteString("(?:" + p[i+2:i+k] + ")")
			p = p[i+k+2:]
			continue
		}
		k := strings.Index(p[j:], "]]")
		if k < 0 {
			sb.WriteString(regexp.QuoteMeta(p))
			break
		}
		sb.WriteString(regexp.QuoteMeta(p[:j]))
		body := p[j+2 : j+k]
		name, re, def := strings.Cut(body, ":")
		if !varName.MatchString(name) {
			return nil, fmt.Errorf("bad pattern %q: bad variable name %q", orig, name)
		}
		if def {
			sb.WriteString("(?P<" + name + ">" + re + ")")
		} else {
			v, ok := vars[name]
			if !ok {
				return nil, fmt.Errorf("bad pattern %q: variable %s is used before a directive defines it", orig, name)
			}
			sb.WriteString(regexp.QuoteMeta(v))
		}
		p = p[j+k+2:]
	}
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil, fmt.Errorf("bad pattern %q: %w", orig, err)
	}
	return re, nil
}

// find returns the position of re's first match in s (nil for none) and records the variables
// it defines in vars.
func find(re *regexp.Regexp, s string, vars map[string]string) []int {
	m := re.FindStringSubmatchIndex(s)
	if m == nil {
		return nil
	}
	for g, name := range re.SubexpNames() {
		if name != "" && m[2*g] >= 0 {
			vars[name] = s[m[2*g]:m[2*g+1]]
		}
	}
	return m[:2]
}

// Directive is one check line.
type Directive struct {
	Kind    string // CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT or CHECK-LABEL (with the prefix as CHECK)
	Pattern string
	Line    int // 1-based line in the source
}

// Directives returns the directives of src with the given prefix ("CHECK" by default).
func Directives(src, prefix string) []Directive {
	if prefix == "" {
		prefix = "CHECK"
	}
	re := regexp.MustCompile(`^// ` + regexp.QuoteMeta(prefix) + `(-NEXT|-SAME|-NOT|-LABEL)?: ?(.*)$`)
	var ds []Directive
	for i, l := range strings.Split(src, "\n") {
		if m := re.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			ds = append(ds, Directive{Kind: "CHECK" + m[1], Pattern: m[2], Line: i + 1})
		}
	}
	return ds
}

// Check matches out against the directives of src with the given prefix ("" = CHECK). It fails
// when src has none: a RUN line whose checks are all misspelt must not pass.
func Check(src, out, prefix string) error {
	ds := Directives(src, prefix)
	if len(ds) == 0 {
		if prefix == "" {
			prefix = "CHECK"
		}
		return fmt.Errorf("no %s: directives", prefix)
	}
	return match(ds, out)
}

// match applies the directives to out.
func match(ds []Directive, out string) error {
	lines := strings.Split(out, "\n")
	line, col := 0, 0 // position after the last match
	var nots []*regexp.Regexp
	matched := false
	vars := map[string]string{}
	for _, d := range ds {
		re, err := compile(d.Pattern, vars)
		if err != nil {
			return fmt.Errorf("line %d: %w", d.Line, err)
		}
		switch d.Kind {
		case "CHECK-NOT":
			nots = append(nots, re)
			continue
		case "CHECK-SAME":
			if !matched {
				return fmt.Errorf("line %d: CHECK-SAME %q: no previous match", d.Line, d.Pattern)
			}
			loc := find(re, lines[line][col:], vars)
			if loc == nil {
				return fmt.Errorf("line %d: CHECK-SAME %q not found on line %q", d.Line, d.Pattern, lines[line])
			}
			col += loc[1]
			continue
		case "CHECK-NEXT":
			next := line + 1
			if !matched || next >= len(lines) || !re.MatchString(lines[next]) {
				return fmt.Errorf("line %d: CHECK-NEXT %q does not match the line after %q", d.Line, d.Pattern, lines[min(line, len(lines)-1)])
			}
			if err := checkNots(nots, lines, line, col, next); err != nil {
				return fmt.Errorf("line %d: %w", d.Line, err)
			}
			nots = nil
			loc := find(re, lines[next], vars)
			line, col = next, loc[1]
			continue
		}
		found := false
		for k := line; k < len(lines); k++ {
			start := 0
			if k == line {
				start = min(col, len(lines[k]))
			}
			if loc := find(re, lines[k][start:], vars); loc != nil {
				if err := checkNots(nots, lines, line, col, k); err != nil {
					return fmt.Errorf("line %d: %w", d.Line, err)
				}
				nots = nil
				line, col, found, matched = k, start+loc[1], true, true
				break
			}
		}
		if !found {
			return fmt.Errorf("line %d: %s %q not found after output line %d", d.Line, d.Kind, d.Pattern, line+1)
		}
	}
	return checkNots(nots, lines, line, col, len(lines))
}

// checkNots fails when one of nots matches between (fromLine, fromCol) and toLine (exclusive;
// the part of toLine before the next match is not searched, as in the pass tests so far).
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
