// This file holds algorithm ops: ops whose semantics no per-point body expresses, because
// each result element depends on decisions taken for the others (a sort's permutation, the
// greedy suppression of NonMaxSuppression). Their generic form is a declaration, not a
// definition: the iteration domain is the result box, every access is the named
// over-approximation of what an element may read (a whole row, every box), and the body is a
// placeholder of data-dependent reads. Element maps, DIE and the passes' analyses are thus
// sound (nothing is known of the result, no read is affine, nothing fuses into or out of the
// op); the evaluator runs Algorithm.Eval and lowering emits the op's own kernel
// (lower/algo.go). DIE may still restrict the domain: the elements outside it are not
// required, and an algorithm computes its whole result anyway.

package ir

import (
	"fmt"

	"github.com/graphc/graphc/volume"
)

// Algorithm is the semantics of an algorithm op.
type Algorithm struct {
	// Eval returns the op's whole result (of the given shape) from its operands' values.
	Eval func(op *Op, ins []*Tensor, shape []int64) (*Tensor, error)
}

// AlgorithmOf returns the algorithm of op, or nil when op is defined by its body.
func AlgorithmOf(op *Op) *Algorithm {
	if d := catalogue[op.Kind]; d != nil {
		return d.Algorithm
	}
	return nil
}

// setAlgorithmForm gives b.Op the generic form of an algorithm op with result type res:
// domain the result box, identity out map, and for each operand k the over-approximated
// access rows[k]: operand k's element reads keep the iteration dims given by keep[k] (operand
// axis a is iteration dim keep[k][a], or free over the operand's extent when -1).
func setAlgorithmForm(b *Builder, res TensorType, keep [][]int) error {
	r := res.Rank()
	dims := dimNames(r)
	b.SetBox(dims, res.Shape, nil)
	b.Op.Out = AffAccess(identity(0, r)...)
	b.Op.Access = nil
	var body *Scalar
	for k := range b.Op.Operands {
		t := b.In(k)
		idx := make([]volume.Aff, t.Rank())
		var free []int
		for a := range idx {
			if keep[k][a] >= 0 {
				idx[a] = volume.AffDim(keep[k][a])
			} else {
				idx[a] = volume.AffConst(0)
				free = append(free, a)
			}
		}
		am, err := approxAlongAxes(b.Params, dims, idx, free, t.Shape)
		if err != nil {
			return b.Errorf("%v", err)
		}
		b.Op.Access = append(b.Op.Access, Access{Approx: true, ApproxMap: am})
		// the placeholder body: a data-dependent read of every operand
		args := make([]*Scalar, t.Rank())
		for a := range args {
			args[a] = ConstI(I64, 0)
		}
		rd := Cast(DynRead(k, t.Elem, args...), res.Elem)
		if body == nil {
			body = rd
		} else {
			body = Bin(SAdd, body, rd)
		}
	}
	b.Op.Body = body
	b.Op.Reduce = ReduceNone
	b.Result = res
	return nil
}

// algoShape checks that an algorithm's result has the shape its operands imply.
func algoShape(op *Op, shape []int64, want ...int64) error {
	if len(shape) != len(want) {
		return fmt.Errorf("%s: result shape %v, want %v", op.Kind, shape, want)
	}
	for i := range want {
		if shape[i] != want[i] {
			return fmt.Errorf("%s: result shape %v, want %v", op.Kind, shape, want)
		}
	}
	return nil
}

// errorOutOfRange reports an index operand of an algorithm op outside [0, n).
func errorOutOfRange(op *Op, i, n int64) error {
	return fmt.Errorf("%s: index %d out of range [0, %d)", op.Kind, i, n)
}
