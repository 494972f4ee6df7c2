// This file holds the verifier: structural invariants every pass must preserve. Its checks come
// from the catalogue (each op is rebuilt from its kind, attributes and operands and compared).

package ir

import (
	"errors"
	"fmt"
	"slices"

	"github.com/graphc/graphc/volume"
)

// ErrInvalid is wrapped by every verifier error.
var ErrInvalid = errors.New("invalid graph")

// Verify checks that g is a well-formed SSA graph: unique names, every operand defined before
// use, outputs defined, every op consistent with its catalogue definition, restricted domains
// inside the constructor's domain, and symbolic dims declared.
func Verify(g *Graph) error {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
	}
	defined := map[*Value]bool{}
	names := map[string]bool{}
	def := func(v *Value, what string) error {
		if v == nil {
			return errf("nil %s", what)
		}
		if names[v.Name] {
			return errf("value %%%s defined twice", v.Name)
		}
		if v.Name == "" {
			return errf("unnamed %s", what)
		}
		names[v.Name] = true
		defined[v] = true
		for _, p := range v.Type.Params() {
			if !slices.Contains(g.Params, p) {
				return errf("%%%s has type %s with undeclared symbolic dim %s", v.Name, v.Type, p)
			}
		}
		return nil
	}
	for _, v := range g.Inputs {
		if err := def(v, "input"); err != nil {
			return err
		}
	}
	for _, c := range g.Consts {
		if err := def(c, "constant"); err != nil {
			return err
		}
		if c.Data == nil {
			return errf("constant %%%s has no data", c.Name)
		}
		if s, ok := c.Type.StaticShape(); !ok || NumElements(s) != int64(c.Data.Len()) {
			return errf("constant %%%s: %d elements for type %s", c.Name, c.Data.Len(), c.Type)
		}
	}
	for _, op := range g.Ops {
		for k, o := range op.Operands {
			if !defined[o] {
				return errf("op %%%s (%s): operand #%d %%%s is not defined before use", op.Result.Name, op.Kind, k, o.Name)
			}
		}
		if err := def(op.Result, "op result"); err != nil {
			return err
		}
		if op.Result.Def != op {
			return errf("op %%%s: result does not point back to its op", op.Result.Name)
		}
		if err := verifyOp(g, op); err != nil {
			return fmt.Errorf("%w: op %%%s (%s): %v", ErrInvalid, op.Result.Name, op.Kind, err)
		}
	}
	for i, o := range g.Outputs {
		if !defined[o] {
			return errf("output #%d %%%s is not defined", i, o.Name)
		}
	}
	if err := verifyBounded(g); err != nil {
		return errf("%v", err)
	}
	return nil
}

func verifyOp(g *Graph, op *Op) (err error) {
	ref, err := MakeOp(g.Params, op.Kind, op.Name, op.Operands, op.Attrs)
	if err != nil {
		return err
	}
	if !ref.Result.Type.Equal(op.Result.Type) {
		return fmt.Errorf("result type %s, the catalogue gives %s", op.Result.Type, ref.Result.Type)
	}
	if len(op.Access) != len(op.Operands) {
		return fmt.Errorf("%d access maps for %d operands", len(op.Access), len(op.Operands))
	}
	if op.Domain.NPieces() > 0 && op.Domain.NDim() != op.NDim() {
		return fmt.Errorf("domain has %d dims, expected %d to match the iterators", op.Domain.NDim(), op.NDim())
	}
	if err := op.Domain.Err(); err != nil {
		return fmt.Errorf("domain: %w", err)
	}
	switch op.Domain.IsSubset(ref.Full) {
	case volume.Unknown:
		return fmt.Errorf("%w: whether the domain %s is inside the op's full domain %s", volume.ErrTooComplex, op.Domain, ref.Full)
	case volume.No:
		return fmt.Errorf("domain %s is not inside the op's full domain %s", op.Domain, ref.Full)
	}
	return nil
}
