// This file imports FusedBatchNorm, FusedBatchNormV2 and FusedBatchNormV3 in inference mode
// (is_training = false): the catalogue's batch_norm, which normalises axis 1, directly for
// NCHW and between layout transposes for NHWC.

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

func init() {
	for _, name := range []string{"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"} {
		registerOp(name, importFusedBatchNorm)
	}
	noteOp("inference (is_training = false) only; NHWC through layout transposes; output y only", "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
}

func importFusedBatchNorm(c *nodeCtx) error {
	if c.NumInputs() != 5 {
		return fmt.Errorf("%w: expected 5 inputs (x, scale, offset, mean, variance), got %d", ErrInvalid, c.NumInputs())
	}
	if c.AttrBool("is_training", true) {
		return fmt.Errorf("%w: is_training = true (batch statistics); frozen inference graphs set it to false", ErrUnsupported)
	}
	e := c.emitter()
	x := e.In(0)
	var params []*ir.Value
	for i := 1; i < 5; i++ {
		params = append(params, e.In(i))
	}
	if e.err != nil {
		return e.err
	}
	if !x.Type.Elem.IsFloat() {
		return fmt.Errorf("%w: x must be a float tensor, got %s", ErrInvalid, x.Type)
	}
	// the parameters may be f32 for an f16 x (type U): computed in x's type
	for i := range params {
		if params[i].Type.Rank() != 1 {
			return fmt.Errorf("%w: input #%d must be 1-D, got %s", ErrInvalid, i+1, params[i].Type)
		}
		params[i] = e.Cast(params[i], x.Type.Elem, "")
	}
	eps := ir.Attrs{"epsilon": ir.FloatAttr(float64(c.AttrFloat("epsilon", 1e-4)))}
	format := c.AttrString("data_format", "NHWC")
	r := x.Type.Rank()
	switch format {
	case "NCHW", "NCDHW":
		e.Out(0, e.Op("batch_norm", e.Base, eps, append([]*ir.Value{x}, params...)...))
	case "NHWC", "NDHWC":
		if r < 2 {
			return fmt.Errorf("%w: x must have rank >= 2, got %s", ErrInvalid, x.Type)
		}
		toFirst, toLast := channelPerms(r)
		xt := e.Transpose(x, toFirst, "")
		y := e.Op("batch_norm", "", eps, append([]*ir.Value{xt}, params...)...)
		e.Out(0, e.Transpose(y, toLast, e.Base))
	default:
		return fmt.Errorf("%w: data_format %q (want NHWC or NCHW)", ErrInvalid, format)
	}
	return e.Done()
}

// channelPerms returns the permutations that move the last dim to position 1 (NHWC → NCHW)
// and back.
func channelPerms(r int) (toFirst, toLast []int64) {
	toFirst = []int64{0, int64(r - 1)}
	for d := 1; d < r-1; d++ {
		toFirst = append(toFirst, int64(d))
	}
	toLast = []int64{0}
	for d := 2; d < r; d++ {
		toLast = append(toLast, int64(d))
	}
	toLast = append(toLast, 1)
	return toFirst, toLast
}
