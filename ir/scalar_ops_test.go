package ir_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// TestScalarTable checks the rows: unique names, semantics for every computing row, arities
// that match the semantic functions, and the body syntax round trip of every call-form row.
func TestScalarTable(t *testing.T) {
	names := map[string]bool{}
	for _, d := range ir.ScalarDefs() {
		require.False(t, names[d.Name], "%s defined twice", d.Name)
		names[d.Name] = true
		assert.Equal(t, d.Name, d.Op.String())
		assert.NotEmpty(t, d.Doc, d.Name)
		if d.Leaf {
			continue
		}
		unary := d.Float1 != nil || d.Int1 != nil || d.Test1F != nil || d.Test1I != nil
		binary := d.Float2 != nil || d.Int2 != nil || d.CmpF != nil || d.CmpI != nil
		switch {
		case d.Pick != nil:
			assert.Equal(t, ir.ResultArm, d.Result, d.Name)
		case d.Convert != nil:
			assert.Equal(t, 1, d.Arity, d.Name)
			assert.Equal(t, ir.ResultGiven, d.Result, d.Name)
		case unary:
			assert.Equal(t, 1, d.Arity, d.Name)
			assert.False(t, binary, d.Name)
			assert.Equal(t, d.Test1F != nil || d.Test1I != nil, d.Result == ir.ResultBool, "%s: tests and only tests yield bool", d.Name)
		case binary:
			assert.Equal(t, 2, d.Arity, d.Name)
			assert.Equal(t, d.CmpF != nil || d.CmpI != nil, d.Result == ir.ResultBool, "%s: comparisons and only comparisons yield bool", d.Name)
		default:
			t.Errorf("%s has no semantics", d.Name)
		}
		if d.Lower.Lanes == ir.LanesRule {
			assert.NotEmpty(t, d.Lower.All, "%s: LanesRule needs an All recipe to decide", d.Name)
		}
		if d.Lower.Float == "expand" || d.Lower.Int == "expand" {
			assert.NotNil(t, d.Expand, d.Name)
		}
		if d.Result == ir.ResultGiven || d.Pick != nil {
			continue
		}
		// the call syntax parses back into the row's operation with its typing rule
		args := []string{"in0", "in1", "in0"}[:d.Arity]
		s, err := ir.ParseScalar(d.Name+"("+strings.Join(args, ", ")+")", []ir.DType{ir.F32, ir.F32})
		require.NoError(t, err, d.Name)
		assert.Equal(t, d.Op, s.Op)
		want := ir.F32
		if d.Result == ir.ResultBool {
			want = ir.Bool
		}
		assert.Equal(t, want, s.Type, d.Name)
		assert.Equal(t, d.Name+"("+strings.Join(args, ", ")+")", s.String())
	}
}

// TestScalarApply checks the semantics the evaluator and constant folding share on values the
// rows single out: trunc's signed zeros and NaN, u64 order, shifts past the width, division by
// zero.
func TestScalarApply(t *testing.T) {
	f := func(op ir.ScalarOp, tt ir.DType, x ...float64) float64 {
		args := make([]ir.Num, len(x))
		for i, v := range x {
			args[i] = ir.Num{F: v}
		}
		r, err := op.Def().Apply(args, tt, tt)
		require.NoError(t, err)
		return r.F
	}
	i := func(op ir.ScalarOp, tt ir.DType, x ...int64) (int64, error) {
		args := make([]ir.Num, len(x))
		for k, v := range x {
			args[k] = ir.Num{I: v}
		}
		r, err := op.Def().Apply(args, tt, tt)
		return r.I, err
	}
	assert.True(t, math.Signbit(f(ir.STrunc, ir.F64, -0.5)))
	assert.Equal(t, 2.0, f(ir.STrunc, ir.F64, 2.9))
	assert.Equal(t, -2.0, f(ir.STrunc, ir.F64, -2.9))
	assert.True(t, math.IsNaN(f(ir.STrunc, ir.F32, math.NaN())))
	assert.True(t, math.IsNaN(f(ir.SMax, ir.F32, 1, math.NaN())))
	v, err := i(ir.SMax, ir.U64, -1, 1) // 2^64-1 > 1 unsigned
	require.NoError(t, err)
	assert.Equal(t, int64(-1), v)
	v, err = i(ir.SShl, ir.I8, 1, 8)
	require.NoError(t, err)
	assert.Equal(t, int64(0), v)
	v, err = i(ir.SShr, ir.I8, -128, 7) // logical within the width
	require.NoError(t, err)
	assert.Equal(t, int64(1), v)
	_, err = i(ir.SDiv, ir.I32, 1, 0)
	assert.ErrorContains(t, err, "division by zero")
	r, err := ir.SLt.Def().Apply([]ir.Num{{I: -1}, {I: 1}}, ir.U64, ir.Bool)
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.I, "2^64-1 < 1 is false unsigned")
	_, err = ir.SExp.Def().Apply([]ir.Num{{I: 1}}, ir.I32, ir.I32)
	assert.ErrorContains(t, err, "exp is not defined on i32")
}

// TestNoScalarOpSwitches keeps the operations defined once: outside the table, the evaluator
// and lowering may switch on the leaves (where a value comes from) but on no computing
// operation, whose behaviour they read from the table.
func TestNoScalarOpSwitches(t *testing.T) {
	ops := scalarOpConsts(t)
	require.Contains(t, ops, "SAdd")
	leaves := map[string]bool{}
	for name, op := range ops {
		if op.Def().Leaf {
			leaves[name] = true
		}
	}
	for _, dir := range []string{"eval", "../lower"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, dir)
		fset := token.NewFileSet()
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			require.NoError(t, err)
			ast.Inspect(f, func(n ast.Node) bool {
				cc, ok := n.(*ast.CaseClause)
				if !ok {
					return true
				}
				for _, e := range cc.List {
					sel, ok := e.(*ast.SelectorExpr)
					if !ok {
						continue
					}
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "ir" && ops[sel.Sel.Name] != 0 && !leaves[sel.Sel.Name] {
						t.Errorf("%s: case ir.%s: read the operation's behaviour from the scalar table (ir/scalar_ops.go)", fset.Position(cc.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// scalarOpConsts returns the ScalarOp constants of scalar_ops.go by Go name (SAdd: ir.SAdd).
func scalarOpConsts(t *testing.T) map[string]ir.ScalarOp {
	f, err := parser.ParseFile(token.NewFileSet(), "scalar_ops.go", nil, 0)
	require.NoError(t, err)
	out := map[string]ir.ScalarOp{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST || len(g.Specs) == 0 {
			continue
		}
		first := g.Specs[0].(*ast.ValueSpec)
		if id, ok := first.Type.(*ast.Ident); !ok || id.Name != "ScalarOp" {
			continue
		}
		for k, spec := range g.Specs {
			for _, n := range spec.(*ast.ValueSpec).Names {
				if n.Name != "numScalarOps" {
					out[n.Name] = ir.ScalarOp(k + 1) // iota + 1
				}
			}
		}
	}
	return out
}

var update = flag.Bool("update", false, "rewrite the generated table of docs/ir-format.md")

// TestScalarOpsDoc checks that docs/ir-format.md lists the operations the table defines.
func TestScalarOpsDoc(t *testing.T) {
	const path = "../docs/ir-format.md"
	const begin, end = "<!-- scalar-ops: generated from ir/scalar_ops.go -->\n", "<!-- end scalar-ops -->\n"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	require.True(t, i >= 0 && j > i, "%s has no generated scalar-ops section", path)
	want := text[:i+len(begin)] + ir.ScalarOpsMarkdown() + text[j:]
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, text, "docs/ir-format.md is stale: run go test ./ir -run TestScalarOpsDoc -update")
}
