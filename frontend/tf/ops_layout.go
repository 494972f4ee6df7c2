// This file imports the layout ops: Reshape (one -1 extent inferred, symbolic when the input
// has one symbolic extent), Transpose, Squeeze and ExpandDims (reshapes), ConcatV2, Concat and
// Pack (concat, Pack after a reshape that inserts the new axis), and Shape of a static tensor
// (a constant, so that shape computations fold at import).

package tf

import (
	"fmt"

	kit "github.com/graphc/graphc/frontend/importer"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("Reshape", importReshape)
	registerOp("Transpose", importTranspose)
	registerOp("Squeeze", importSqueeze)
	registerOp("ExpandDims", importExpandDims)
	registerOp("ConcatV2", importConcat(false))
	registerOp("Concat", importConcat(true))
	registerOp("Pack", importPack)
	registerOp("Shape", importShape)
	noteOp("shape known at import (constant, or computed from Shape over symbolic dims); at most one -1", "Reshape")
	noteOp("constant perm", "Transpose")
	noteOp("a reshape; squeeze_dims or every static unit dim", "Squeeze")
	noteOp("a reshape; constant dim", "ExpandDims")
	noteOp("constant axis", "ConcatV2", "Concat")
	noteOp("a reshape of each input, then concat", "Pack")
	noteOp("a value known at import: constant, or quasi-affine in the symbolic dims (materialised as a values op when read as data)", "Shape")
}

func importReshape(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs (tensor, shape), got %d", ErrInvalid, c.NumInputs())
	}
	want, err := c.RequireSymInts(1, "shape")
	if err != nil {
		return err
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	shape, err := reshapeExtents(x.Type.Shape, want)
	if err != nil {
		return err
	}
	e.Out(0, e.Reshape(x, shape, e.Base))
	return e.Done()
}

// reshapeExtents resolves a Reshape shape (at most one -1; extents may be symbolic, as computed
// from Shape) against the input extents: the -1 is inferred as in every format
// (kit.InferExtent), and without one the element counts must agree.
func reshapeExtents(in []volume.Aff, want []volume.Aff) ([]volume.Aff, error) {
	out := append([]volume.Aff(nil), want...)
	infer := -1
	var rest []volume.Aff // the extents other than the inferred one
	for i, d := range want {
		if c, ok := d.IsConst(); ok && c < 0 {
			if c != -1 || infer >= 0 {
				return nil, fmt.Errorf("%w: shape %s has extent %d (only one -1 may be inferred)", ErrInvalid, extentsString(want), c)
			}
			infer = i
			continue
		}
		rest = append(rest, d)
	}
	if infer >= 0 {
		d, err := kit.InferExtent(in, rest, ErrInvalid)
		if err != nil {
			return nil, fmt.Errorf("reshape of %s to %s: %w", extentsString(in), extentsString(want), err)
		}
		out[infer] = d
		return out, nil
	}
	total, err := kit.ExtentProduct(in)
	if err != nil {
		return nil, err
	}
	known, err := kit.ExtentProduct(want)
	if err != nil {
		return nil, err
	}
	if !total.Equal(known) {
		return nil, fmt.Errorf("%w: shape %s has %s elements, the input %s has %s", ErrInvalid, extentsString(want), known.String(), extentsString(in), total.String())
	}
	return out, nil
}

func importTranspose(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs (x, perm), got %d", ErrInvalid, c.NumInputs())
	}
	perm, err := c.RequireInts(1, "perm")
	if err != nil {
		return err
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	if len(perm) != x.Type.Rank() {
		return fmt.Errorf("%w: perm %v for an input of rank %d", ErrInvalid, perm, x.Type.Rank())
	}
	// TensorFlow accepts negative entries (counting from the end)
	for i, p := range perm {
		if p < 0 {
			perm[i] = p + int64(len(perm))
		}
	}
	e.Out(0, e.Transpose(x, perm, e.Base))
	return e.Done()
}

// importSqueeze drops the dims of extent 1 named by squeeze_dims (all of them when empty).
func importSqueeze(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	if x == nil {
		return e.Done()
	}
	r := x.Type.Rank()
	drop := map[int]bool{}
	if dims := c.AttrInts("squeeze_dims", c.AttrInts("axis", nil)); len(dims) > 0 {
		axes, err := resolveAxes(dims, r)
		if err != nil {
			return err
		}
		for _, a := range axes {
			if n, ok := x.Type.Dim(a); !ok || n != 1 {
				return fmt.Errorf("%w: dim %d of %s is not 1", ErrInvalid, a, x.Type)
			}
			drop[a] = true
		}
	} else {
		for a := 0; a < r; a++ {
			if n, ok := x.Type.Dim(a); ok && n == 1 {
				drop[a] = true
			}
		}
	}
	var shape []volume.Aff
	for a, d := range x.Type.Shape {
		if !drop[a] {
			shape = append(shape, d)
		}
	}
	e.Out(0, e.Reshape(x, shape, e.Base))
	return e.Done()
}

// importExpandDims inserts a dim of extent 1 at dim (negative counts from the end of the
// result).
func importExpandDims(c *nodeCtx) error {
	if c.NumInputs() != 2 {
		return fmt.Errorf("%w: expected 2 inputs (input, dim), got %d", ErrInvalid, c.NumInputs())
	}
	dim, err := c.RequireInt(1, "dim")
	if err != nil {
		return err
	}
	e := c.emitter()
	x := e.In(0)
	if x == nil {
		return e.Done()
	}
	e.Out(0, e.insertAxis(x, dim, e.Base))
	return e.Done()
}

// insertAxis inserts a unit dim at axis (in [-rank-1, rank]) of v.
func (e *emitter) insertAxis(v *ir.Value, axis int64, name string) *ir.Value {
	if v == nil || e.err != nil {
		return nil
	}
	r := int64(v.Type.Rank())
	if axis < -r-1 || axis > r {
		e.Fail(fmt.Errorf("%w: axis %d out of range for inserting into rank %d", ErrInvalid, axis, r))
		return nil
	}
	if axis < 0 {
		axis += r + 1
	}
	shape := append([]volume.Aff(nil), v.Type.Shape[:axis]...)
	shape = append(shape, volume.AffConst(1))
	shape = append(shape, v.Type.Shape[axis:]...)
	return e.Reshape(v, shape, name)
}

// importConcat: ConcatV2 takes the values then the axis; Concat the axis first.
func importConcat(axisFirst bool) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		n := c.NumInputs()
		if n < 2 {
			return fmt.Errorf("%w: expected values and an axis, got %d inputs", ErrInvalid, n)
		}
		axisIn, first := n-1, 0
		if axisFirst {
			axisIn, first = 0, 1
		}
		axis, err := c.RequireInt(axisIn, "axis")
		if err != nil {
			return err
		}
		e := c.emitter()
		var vals []*ir.Value
		for i := first; i < first+n-1; i++ {
			vals = append(vals, e.In(i))
		}
		if e.err != nil {
			return e.err
		}
		if len(vals) == 1 {
			e.Out(0, e.Op("identity", e.Base, nil, vals[0]))
			return e.Done()
		}
		if _, err := resolveAxes([]int64{axis}, vals[0].Type.Rank()); err != nil {
			return err
		}
		e.Out(0, e.Op("concat", e.Base, ir.Attrs{"axis": ir.IntAttr(axis)}, vals...))
		return e.Done()
	}
}

// importPack stacks its inputs along a new axis.
func importPack(c *nodeCtx) error {
	n := c.NumInputs()
	if n == 0 {
		return fmt.Errorf("%w: no inputs", ErrInvalid)
	}
	axis := c.AttrInt("axis", 0)
	e := c.emitter()
	var vals []*ir.Value
	for i := 0; i < n; i++ {
		vals = append(vals, e.insertAxis(e.In(i), axis, e.NameIf(n == 1)))
	}
	if e.err != nil || n == 1 {
		e.Out(0, vals[0])
		return e.Done()
	}
	if axis < 0 {
		axis += int64(vals[0].Type.Rank())
	}
	e.Out(0, e.Op("concat", e.Base, ir.Attrs{"axis": ir.IntAttr(axis)}, vals...))
	return e.Done()
}

// importShape returns the shape of its input as a value known at import (symbolic extents
// included), of out_type (int32 by default).
func importShape(c *nodeCtx) error {
	e := c.emitter()
	x := unary(c, e)
	if x == nil {
		return e.Done()
	}
	to := ir.I32
	if t, ok, err := c.AttrType("out_type"); err != nil {
		return err
	} else if ok {
		to = t
	}
	if to != ir.I32 && to != ir.I64 {
		return fmt.Errorf("%w: out_type %s (want int32 or int64)", ErrInvalid, to)
	}
	c.SetSym(0, to, []int64{int64(x.Type.Rank())}, x.Type.Shape)
	return nil
}
