// This file finds the tests whose behaviour depends on the host's CPU: those that name an x86
// CPU beyond the baseline (a CPU of lower/targets, "native", -march=/--mcpu= of one, a --mattr
// that adds an x86 extension) or ask for the host's best code (Native), directly, through a
// package-level variable or through functions of their package. Only they do anything
// different under GRAPHC_HOST_CPU (the cap reaches code through this package's machines and
// CanRun alone), so CI reruns just them with the host capped at x86-64-v3
// (xtools/hosttests prints their -run pattern).

package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// cpuNamer tells which string literals name a non-baseline x86 CPU or extension.
type cpuNamer struct{ cpus, feats map[string]bool }

func newCPUNamer() cpuNamer {
	n := cpuNamer{cpus: map[string]bool{"native": true}, feats: map[string]bool{}}
	for _, c := range X86CPUs() {
		if c != "x86-64" {
			n.cpus[c] = true
		}
	}
	for _, e := range isaExts {
		n.feats[e.feature] = true
	}
	return n
}

func (n cpuNamer) names(s string) bool {
	for _, p := range []string{"-march=", "--mcpu=", "-mcpu=", "--march="} {
		s = strings.TrimPrefix(s, p)
	}
	if n.cpus[s] {
		return true
	}
	for _, f := range strings.Split(s, ",") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(f), "+"); ok && n.feats[name] {
			return true
		}
	}
	return false
}

// hostCalls are this package's functions that hand out host-dependent code or answers
// without a CPU name in the caller.
var hostCalls = map[string]bool{"Native": true, "HostCPU": true, "HostCanExecute": true, "X86CPUs": true}

// capSinks are the calls through which the cap reaches a test: this package's builders and
// host questions, and the conformance runner. A test that names a CPU but reaches none of them
// (it lowers for skylake-avx512 and reads the IR) does the same under any cap.
var capSinks = map[string]bool{"BuildBatch": true, "Build": true, "CanRun": true, "CanExecute": true,
	"HostCanExecute": true, "HostCPU": true, "Native": true, "RunAllCompiled": true}

// HostDependentTests returns the names of the Test functions in dir's _test.go files whose
// behaviour depends on the host's CPU (see the file comment), sorted.
func HostDependentTests(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, p, src, 0)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return hostDependent(files, newCPUNamer()), nil
}

// hostDependent returns the Test functions of one package's files that name a CPU (or call a
// hostCalls function) and reach a capSinks call, each directly, through a package-level
// variable or through the functions and methods of the package they call.
func hostDependent(files []*ast.File, n cpuNamer) []string {
	names := func(node ast.Node, cpuVars map[string]bool) bool {
		found := false
		ast.Inspect(node, func(x ast.Node) bool {
			switch x := x.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(x.Value); err == nil && x.Kind == token.STRING && n.names(s) {
					found = true
				}
			case *ast.Ident:
				found = found || cpuVars[x.Name]
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok && id.Name == "e2e" && hostCalls[x.Sel.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	// package-level variables and constants whose values name a CPU (a fixed point: one may
	// name another)
	cpuVars := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, f := range files {
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok {
					continue
				}
				for _, s := range gd.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for _, v := range vs.Values {
						if !names(v, cpuVars) {
							continue
						}
						for _, id := range vs.Names {
							if !cpuVars[id.Name] {
								cpuVars[id.Name], changed = true, true
							}
						}
					}
				}
			}
		}
	}
	// functions and methods (by name: a call through any receiver reaches every method of
	// that name) and what they call
	type fn struct {
		names, reaches bool
		calls          []string
	}
	funcs := map[string]*fn{}
	var tests []string
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				tests = append(tests, fd.Name.Name)
			}
			ff := funcs[fd.Name.Name]
			if ff == nil {
				ff = &fn{}
				funcs[fd.Name.Name] = ff
			}
			ff.names = ff.names || names(fd.Body, cpuVars)
			ast.Inspect(fd.Body, func(x ast.Node) bool {
				if c, ok := x.(*ast.CallExpr); ok {
					switch f := c.Fun.(type) {
					case *ast.Ident:
						ff.calls = append(ff.calls, f.Name)
					case *ast.SelectorExpr:
						ff.calls = append(ff.calls, f.Sel.Name)
						ff.reaches = ff.reaches || capSinks[f.Sel.Name]
					}
				}
				return true
			})
		}
	}
	for changed := true; changed; {
		changed = false
		for _, ff := range funcs {
			for _, c := range ff.calls {
				g := funcs[c]
				if g == nil {
					continue
				}
				if g.names && !ff.names {
					ff.names, changed = true, true
				}
				if g.reaches && !ff.reaches {
					ff.reaches, changed = true, true
				}
			}
		}
	}
	var out []string
	for _, t := range tests {
		if funcs[t].names && funcs[t].reaches {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
