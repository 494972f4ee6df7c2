// This file checks every scalar operation on every element type, every cast and every
// reduction kind as compiled code against the evaluator, on x86-64 and (float types) on
// Hexagon under qemu.

package lower_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/ir"
)

var allTypes = []ir.DType{ir.F32, ir.F64, ir.F16, ir.I64, ir.I32, ir.I8, ir.U8, ir.Bool}

// tableOps returns the computing operations of the scalar table (ir/scalar_ops.go) that are
// defined on element type t and written as calls, with their arity: a new row is tested on
// every type it defines without touching this file.
func tableOps(t ir.DType) (names []string, arity map[string]int, compare map[string]bool) {
	arity, compare = map[string]int{}, map[string]bool{}
	for _, d := range ir.ScalarDefs() {
		if d.Leaf || d.Pick != nil || d.Convert != nil {
			continue // leaves, select and casts have cases of their own
		}
		var err error
		switch d.Arity {
		case 1:
			_, err = d.Unary(t, t)
		case 2:
			_, err = d.Binary(t, t)
		}
		if err != nil || d.Lower.For(t) == "" && d.Lower.Poly == "" && d.Lower.Intrinsic == "" {
			continue
		}
		names = append(names, d.Name)
		arity[d.Name] = d.Arity
		compare[d.Name] = d.Result == ir.ResultBool
	}
	return names, arity, compare
}

// elementwise returns a 2-D elementwise generic op over n inputs of type t.
func elementwise(t ir.DType, n int, body string, res ir.DType) genericSpec {
	s := genericSpec{domain: "{ [i, j] : 0 <= i < 6 and 0 <= j < 13 }", out: "{ [i, j] -> [i, j] }",
		body: body, typ: ir.StaticType(res, 6, 13).String()}
	for k := 0; k < n; k++ {
		s.inputs = append(s.inputs, ir.StaticType(t, 6, 13))
		s.access = append(s.access, "{ [i, j] -> [i, j] }")
	}
	return s
}

// scalarCases returns a case per operation, type, cast and reduction.
func scalarCases(t *testing.T, types []ir.DType, seed uint64) ([]string, []*e2e.Case) {
	r := rand.New(rand.NewPCG(seed, 1))
	var names []string
	var cases []*e2e.Case
	add := func(name string, s genericSpec) {
		g, err := genericGraph(s)
		require.NoError(t, err, name)
		names = append(names, name)
		cases = append(cases, &e2e.Case{Graph: g, Inputs: inputsFor(r, g, nil, true)})
	}
	for _, ty := range types {
		ops, arity, compare := tableOps(ty)
		for _, op := range ops {
			res := ty
			if compare[op] {
				res = ir.Bool
			}
			body := op + "(in0)"
			if arity[op] == 2 {
				body = op + "(in0, in1)"
			}
			add(fmt.Sprintf("%s/%s", op, ty), elementwise(ty, arity[op], body, res))
		}
		add(fmt.Sprintf("select/%s", ty), elementwise(ty, 2, "select(lt(in0, in1), in0, in1)", ty))
		for _, to := range allTypes {
			if to != ty {
				add(fmt.Sprintf("cast/%s->%s", ty, to), elementwise(ty, 1, fmt.Sprintf("cast<%s>(in0)", to), to))
			}
		}
		for _, red := range []string{"sum", "prod", "max", "min"} {
			add(fmt.Sprintf("reduce-%s/%s", red, ty), genericSpec{
				inputs: []ir.TensorType{ir.StaticType(ty, 6, 13)}, domain: "{ [i, k] : 0 <= i < 6 and 0 <= k < 13 }",
				access: []string{"{ [i, k] -> [i, k] }"}, out: "{ [i, k] -> [i] }", body: "in0",
				typ: ir.StaticType(ty, 6).String(), reduce: red, init: map[string]float64{"sum": 0, "prod": 1, "max": -3, "min": 3}[red],
				iterator: []string{"parallel", "reduction"}})
		}
		for _, red := range []string{"argmax", "argmin", "argmax_last", "argmin_last"} {
			add(fmt.Sprintf("reduce-%s/%s", red, ty), genericSpec{
				inputs: []ir.TensorType{ir.StaticType(ty, 6, 13)}, domain: "{ [i, k] : 0 <= i < 6 and 0 <= k < 13 }",
				access: []string{"{ [i, k] -> [i, k] }"}, out: "{ [i, k] -> [i] }", body: "in0",
				typ: ir.StaticType(ir.I64, 6).String(), reduce: red, argdim: 1,
				iterator: []string{"parallel", "reduction"}})
		}
	}
	return names, cases
}

func TestScalarOpsX86(t *testing.T) {
	names, cases := scalarCases(t, allTypes, 1)
	runCases(t, e2e.Host(), names, cases)
}

func TestScalarOpsHexagon(t *testing.T) {
	if testing.Short() {
		t.Skip("qemu run")
	}
	names, cases := scalarCases(t, allTypes, 2)
	runCases(t, e2e.HexagonScalar(), names, cases)
}
