// This file imports the contractions and the banded selections of the DIE paper's examples:
// MatMul (transpose_a/b), BatchMatMul/V2/V3 (adj_x/adj_y), each a matmul, or an einsum when an
// operand is transposed; BiasAdd; MatrixBandPart and MatrixDiagPart.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	registerOp("MatMul", importMatMul("transpose_a", "transpose_b", false))
	registerOp("BatchMatMul", importMatMul("adj_x", "adj_y", true))
	registerOp("BatchMatMulV2", importMatMul("adj_x", "adj_y", true))
	registerOp("BatchMatMulV3", importMatMul("adj_x", "adj_y", true))
	registerOp("BiasAdd", importBiasAdd)
	registerOp("BiasAddV1", importBiasAdd)
	registerOp("MatrixBandPart", importBandPart)
	registerOp("MatrixDiagPart", simple("diag_part", 1))
	noteOp("matmul, or einsum when transpose_a or transpose_b is set", "MatMul")
	noteOp("matmul with batch broadcasting, or einsum when adj_x or adj_y is set (the transpose: real types only); V3 converts to Tout first", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
	noteOp("NHWC (last dim) or NCHW (dim 1)", "BiasAdd")
	noteOp("constant num_lower and num_upper (-1 keeps all): a banded domain", "MatrixBandPart")
	noteOp("a diagonal domain", "MatrixDiagPart")
}

// importMatMul: a · b, with either operand transposed (adjoint is the transpose for real
// types) in its last two dims. MatMul takes matrices; BatchMatMul broadcasts batch dims.
func importMatMul(ta, tb string, batch bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		if c.NumInputs() != 2 {
			return fmt.Errorf("%w: expected 2 inputs, got %d", ErrInvalid, c.NumInputs())
		}
		e := c.emitter()
		a, b := e.In(0), e.In(1)
		if e.err != nil {
			return e.err
		}
		if batch {
			if a.Type.Rank() < 2 || b.Type.Rank() < 2 {
				return fmt.Errorf("%w: operands must have rank >= 2, got %s and %s", ErrInvalid, a.Type, b.Type)
			}
		} else if a.Type.Rank() != 2 || b.Type.Rank() != 2 {
			return fmt.Errorf("%w: operands must be matrices, got %s and %s", ErrInvalid, a.Type, b.Type)
		}
		// BatchMatMulV3 may multiply narrower operands into Tout (int8 · int8 → int32):
		// converting first is exact, as TensorFlow accumulates in Tout
		if to, ok, err := c.AttrType("Tout"); err != nil {
			return err
		} else if ok {
			a, b = e.Cast(a, to, ""), e.Cast(b, to, "")
		}
		if a.Type.Elem != b.Type.Elem {
			return fmt.Errorf("%w: operand types differ: %s and %s", ErrInvalid, a.Type, b.Type)
		}
		trA, trB := c.AttrBool(ta, false), c.AttrBool(tb, false)
		if !trA && !trB {
			e.Out(0, e.Op("matmul", e.Base, nil, a, b))
			return e.Done()
		}
		lhs, rhs := "ik", "kj"
		if trA {
			lhs = "ki"
		}
		if trB {
			rhs = "jk"
		}
		pre := ""
		if batch {
			pre = "..."
		}
		eq := pre + lhs + "," + pre + rhs + "->" + pre + "ij"
		e.Out(0, e.Op("einsum", e.Base, ir.Attrs{"equation": ir.StringAttr(eq)}, a, b))
		return e.Done()
	}
}

// importBiasAdd adds a 1-D bias along the channel dim: the last for NHWC, dim 1 for NCHW.
func importBiasAdd(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs, got %d", ErrInvalid, c.NumInputs())
	}
	e := c.emitter()
	x, b := e.In(0), e.In(1)
	if e.err != nil {
		return e.err
	}
	if b.Type.Rank() != 1 {
		return fmt.Errorf("%w: bias must be 1-D, got %s", ErrInvalid, b.Type)
	}
	if x.Type.Rank() < 2 {
		return fmt.Errorf("%w: value must have rank >= 2, got %s", ErrInvalid, x.Type)
	}
	ch := x.Type.Rank() - 1
	format := c.AttrString("data_format", "NHWC")
	switch format {
	case "NHWC":
	case "NCHW":
		ch = 1
	default:
		return fmt.Errorf("%w: data_format %q (want NHWC or NCHW)", ErrInvalid, format)
	}
	if !x.Type.Shape[ch].Equal(b.Type.Shape[0]) {
		return fmt.Errorf("%w: bias %s does not match dim %d of %s (%s)", ErrInvalid, b.Type, ch, x.Type, format)
	}
	if ch != x.Type.Rank()-1 {
		// [C] → [C, 1, …, 1] so that numpy broadcasting aligns it with dim 1
		b = e.UnitDims(b, x.Type.Rank()-1-ch)
	}
	e.Out(0, e.Op("add", e.Base, nil, x, b))
	return e.Done()
}

func importBandPart(c *nodeCtx) error {
	if c.NumInputs() != 3 {
		return fmt.Errorf("%w: expected 3 inputs, got %d", ErrInvalid, c.NumInputs())
	}
	lo, err := c.RequireInt(1, "num_lower")
	if err != nil {
		return err
	}
	up, err := c.RequireInt(2, "num_upper")
	if err != nil {
		return err
	}
	e := c.emitter()
	e.Out(0, e.Op("band_part", e.Base, ir.Attrs{"lower": ir.IntAttr(lo), "upper": ir.IntAttr(up)}, e.In(0)))
	return e.Done()
}
