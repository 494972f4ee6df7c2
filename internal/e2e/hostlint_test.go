package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The rule TestExecutionAsksTheHost enforces: a test function that names an x86 CPU beyond
// the baseline (a CPU of lower/targets, "native", -march=/--mcpu= of one, or a --mattr that
// adds an x86 extension), directly or through a package-level variable, and reaches code
// execution (execSinks, directly or through functions of its package) must reach it through
// a function that asks the host helper (askNames): itself, or every helper on the way.

// execSinks are the calls that build code to execute: e2e's builders (qualified with e2e., or
// unqualified inside package e2e) and the conformance runner, which executes its machine's
// code.
var execSinks = map[string]bool{"e2e.BuildBatch": true, "e2e.Build": true, "RunAllCompiled": true}

// askNames are the host helper's entry points.
var askNames = map[string]bool{"CanRun": true, "CanExecute": true, "HostCanExecute": true}

// funcFacts are what the rule reads from one function's body.
type funcFacts struct {
	pos         token.Position
	namesCPU    bool
	asks, sinks bool
	calls       []string // functions of the package it calls, by name
}

// lintExecution returns the functions of one package's files that name a CPU and reach
// execution without asking the host helper, as "file:line: Func".
func lintExecution(fset *token.FileSet, files []*ast.File, inE2E bool, n cpuNamer) []string {
	// package-level variables and constants whose values name a CPU
	cpuVars := map[string]bool{}
	declared := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					named := false
					for _, v := range vs.Values {
						ast.Inspect(v, func(x ast.Node) bool {
							if l, ok := x.(*ast.BasicLit); ok && l.Kind == token.STRING {
								if s, err := strconv.Unquote(l.Value); err == nil && n.names(s) {
									named = true
								}
							}
							return true
						})
					}
					for _, id := range vs.Names {
						cpuVars[id.Name] = cpuVars[id.Name] || named
					}
				}
			case *ast.FuncDecl:
				declared[d.Name.Name] = true
			}
		}
	}
	facts := map[string]*funcFacts{}
	var order []string
	for _, f := range files {
		imports := map[string]bool{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			name := filepath.Base(p)
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = true
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := fd.Name.Name
			if fd.Recv != nil {
				key = "(method)." + key
			}
			ff := &funcFacts{pos: fset.Position(fd.Pos())}
			ast.Inspect(fd.Body, func(x ast.Node) bool {
				switch x := x.(type) {
				case *ast.BasicLit:
					if x.Kind == token.STRING {
						if s, err := strconv.Unquote(x.Value); err == nil && n.names(s) {
							ff.namesCPU = true
						}
					}
				case *ast.Ident:
					if cpuVars[x.Name] {
						ff.namesCPU = true
					}
				case *ast.CallExpr:
					var name, qual string
					switch fn := x.Fun.(type) {
					case *ast.Ident:
						name = fn.Name
					case *ast.SelectorExpr:
						name = fn.Sel.Name
						if id, ok := fn.X.(*ast.Ident); ok && imports[id.Name] {
							qual = id.Name
						}
					}
					switch {
					case askNames[name]:
						ff.asks = true
					case execSinks[name] || qual != "" && execSinks[qual+"."+name] || inE2E && qual == "" && execSinks["e2e."+name]:
						ff.sinks = true
					case qual == "" && declared[name]:
						ff.calls = append(ff.calls, name)
					}
				}
				return true
			})
			if old, ok := facts[key]; ok {
				// same name in both the package and its _test package: either may be meant
				ff.sinks = ff.sinks || old.sinks
				ff.calls = append(ff.calls, old.calls...)
				ff.asks = ff.asks && old.asks
			}
			facts[key] = ff
			order = append(order, key)
		}
	}
	// ungated: reaches execution without a function on the way that asks
	ungated := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for k, ff := range facts {
			if ungated[k] || ff.asks {
				continue
			}
			u := ff.sinks
			for _, c := range ff.calls {
				u = u || ungated[c]
			}
			if u {
				ungated[k], changed = true, true
			}
		}
	}
	var out []string
	for _, k := range order {
		if ff := facts[k]; ff.namesCPU && ungated[k] {
			out = append(out, ff.pos.Filename+":"+strconv.Itoa(ff.pos.Line)+": "+strings.TrimPrefix(k, "(method)."))
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// repoRoot returns the directory of the repository's go.mod.
func repoRoot(t *testing.T) string {
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		require.NotEqual(t, parent, dir, "no go.mod above the test")
		dir = parent
	}
}

// TestExecutionAsksTheHost: no test in the repository executes code for a named x86 CPU
// without asking the host helper (CanRun): on a host without that CPU's extensions, or under
// GRAPHC_HOST_CPU, it would die of an illegal instruction.
func TestExecutionAsksTheHost(t *testing.T) {
	root := repoRoot(t)
	n := newCPUNamer()
	require.True(t, n.names("skylake-avx512") && n.names("-march=native") && n.names("+avx512vnni,-evex512"))
	require.False(t, n.names("x86-64") || n.names("hexagonv67") || n.names("-hvx"))
	byDir := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "proto" || name == "node_modules" || name == "vendor"):
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, "_test.go") {
			byDir[filepath.Dir(path)] = append(byDir[filepath.Dir(path)], path)
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, byDir[filepath.Join(root, "lower")], "lower's tests are found")
	var bad []string
	checked := 0
	for dir, paths := range byDir {
		fset := token.NewFileSet()
		var files []*ast.File
		for _, p := range paths {
			f, err := parser.ParseFile(fset, p, nil, 0)
			require.NoError(t, err)
			files = append(files, f)
		}
		checked += len(files)
		for _, b := range lintExecution(fset, files, dir == filepath.Join(root, "internal", "e2e"), n) {
			rel, _ := filepath.Rel(root, b)
			bad = append(bad, rel)
		}
	}
	t.Logf("%d test files checked", checked)
	require.Empty(t, bad, "these tests execute code for a named CPU without asking e2e.CanRun (the host may lack its extensions)")
}

// TestLintExecutionCatches: the rule flags a test that runs skylake-avx512 code through an
// ungated helper, through a package-level CPU list, or through the conformance runner, and
// accepts the same tests once the helper asks.
func TestLintExecutionCatches(t *testing.T) {
	src := `package x_test

import (
	"testing"

	"github.com/graphc/graphc/internal/conformance"
	"github.com/graphc/graphc/internal/e2e"
)

var cpus = []string{"", "haswell"}

func run(t *testing.T, m e2e.Machine) {
	p, _ := e2e.BuildBatch(nil, "", m, nil)
	p.Run(nil)
}

func runGated(t *testing.T, m e2e.Machine) {
	if !e2e.CanRun(t, m) {
		return
	}
	run(t, m)
}

func TestDirect(t *testing.T) {
	run(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"})
}

func TestList(t *testing.T) {
	for _, c := range cpus {
		t.Run(c, func(t *testing.T) { run(t, e2e.Machine{CPU: c}) })
	}
}

func TestConformance(t *testing.T) {
	conformance.RunAllCompiled(nil, "", "", nil, conformance.CompiledOptions{Machine: e2e.Machine{CPU: "native"}})
}

func TestMarch(t *testing.T) {
	p, _ := e2e.Build(nil, "", nil, nil, "-march=znver4")
	p.Run(nil, nil, nil, 1)
}

func TestGated(t *testing.T) {
	runGated(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"})
}

func TestAsksItself(t *testing.T) {
	m := e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"}
	if e2e.CanRun(t, m) {
		run(t, m)
	}
}

func TestCompileOnly(t *testing.T) {
	_ = e2e.Machine{CPU: "skylake-avx512"}
}

func TestBaseline(t *testing.T) {
	run(t, e2e.Host())
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, 0)
	require.NoError(t, err)
	got := lintExecution(fset, []*ast.File{f}, false, newCPUNamer())
	var names []string
	for _, g := range got {
		names = append(names, g[strings.LastIndex(g, " ")+1:])
	}
	require.Equal(t, []string{"TestDirect", "TestList", "TestConformance", "TestMarch"}, sortedByLine(got, names))
}

// sortedByLine returns names in the order of their positions' lines.
func sortedByLine(pos, names []string) []string {
	idx := make([]int, len(pos))
	line := func(p string) int {
		parts := strings.Split(p, ":")
		n, _ := strconv.Atoi(parts[1])
		return n
	}
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return line(pos[idx[a]]) < line(pos[idx[b]]) })
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = names[k]
	}
	return out
}
