// This file imports the contractions: MatMul, Gemm (a matmul, or an einsum when an operand is
// transposed, then alpha and beta * C) and Einsum.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("MatMul", 1, importMatMul)
	registerOp("Gemm", 7, importGemm)
	registerOp("Einsum", 12, importEinsum)
	noteOp("MatMul", "numpy batch broadcasting; float16 products are summed in float32 and rounded once, as numpy and onnxruntime do")
	noteOp("Gemm", "matmul (einsum when an operand is transposed), then alpha and beta * C")
	noteOp("Einsum", "explicit or implicit output, diagonals, ellipsis with broadcasting")
}

// importMatMul: a matmul (float16 accumulated in float32).
func importMatMul(c *nodeCtx) error {
	e := c.emitter()
	e.Out(0, e.matmulAcc(c.Output(0), e.In(0), e.In(1)))
	return e.Done()
}

// importGemm: Y = alpha * A' B' + beta * C with A' = transpose(A) if transA, likewise B'.
func importGemm(c *nodeCtx) error {
	e := c.emitter()
	a, b := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	if a.Type.Rank() != 2 || b.Type.Rank() != 2 {
		return fmt.Errorf("%w: A and B must be matrices, got %s and %s", ErrInvalid, a.Type, b.Type)
	}
	ta, tb := c.AttrInt("transA", 0) != 0, c.AttrInt("transB", 0) != 0
	alpha := float64(c.AttrFloat("alpha", 1))
	beta := float64(c.AttrFloat("beta", 1))
	hasC := c.HasInput(2) && beta != 0
	last := func(done bool) string {
		if done {
			return c.Output(0)
		}
		return ""
	}
	var y *ir.Value
	if !ta && !tb {
		y = e.Op("matmul", last(alpha == 1 && !hasC), nil, a, b)
	} else {
		lhs, rhs := "ik", "kj"
		if ta {
			lhs = "ki"
		}
		if tb {
			rhs = "jk"
		}
		y = e.Op("einsum", last(alpha == 1 && !hasC), ir.Attrs{"equation": ir.StringAttr(lhs + "," + rhs + "->ij")}, a, b)
	}
	t := a.Type.Elem
	if alpha != 1 {
		y = e.Op("mul", last(!hasC), nil, y, e.Scalar(t, alpha))
	}
	if hasC {
		cv := e.In(2)
		if beta != 1 {
			cv = e.Op("mul", "", nil, cv, e.Scalar(t, beta))
		}
		y = e.Op("add", c.Output(0), nil, y, cv)
	}
	e.Out(0, y)
	return e.Done()
}

func importEinsum(c *nodeCtx) error {
	e := c.emitter()
	var ins []*ir.Value
	for i := 0; i < c.NumInputs(); i++ {
		ins = append(ins, e.In(i))
	}
	e.Out(0, e.Op("einsum", c.Output(0), ir.Attrs{"equation": ir.StringAttr(c.AttrString("equation", ""))}, ins...))
	return e.Done()
}
