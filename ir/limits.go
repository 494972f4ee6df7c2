// This file bounds what a model may declare: the importers and the driver check these limits
// before they allocate anything a hostile file could make unbounded.

package ir

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrLimit is wrapped by every error about a model exceeding one of its Limits.
var ErrLimit = errors.New("limit exceeded")

// ErrUnknownDim is wrapped by the importers' errors for a binding (--dim NAME=VALUE) of a
// symbolic dim the model does not have: a mistake in the command line, not in the model.
var ErrUnknownDim = errors.New("unknown symbolic dim")

// UnknownDimError returns the error for bindings of dims a model does not declare.
func UnknownDimError(bound map[string]int64, used map[string]bool, declared []string) error {
	var unknown []string
	for n := range bound {
		if !used[n] {
			unknown = append(unknown, n)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	has := "no symbolic dims"
	if len(declared) > 0 {
		has = "its symbolic dims are " + strings.Join(declared, ", ")
	}
	return fmt.Errorf("%w: --dim %s: the model has no such dim (%s)", ErrUnknownDim, strings.Join(unknown, ", "), has)
}

// Limits bounds the size of what a model declares. A zero field means its default; every
// default fits real models (the largest public LLM checkpoints included) with room to spare.
type Limits struct {
	// MaxFileBytes bounds the model file (default 2 GiB, protobuf's own message limit).
	MaxFileBytes int64
	// MaxNodes bounds the number of nodes of a graph (default 2^20).
	MaxNodes int
	// MaxConstantElements bounds a constant the importer materialises (default 2^31 elements).
	MaxConstantElements int64
	// MaxTensorElements bounds the element count any tensor type declares or infers, static
	// dims only (default 2^40): beyond it the byte offsets of generated code could overflow.
	MaxTensorElements int64
	// MaxStringBytes bounds a name or string attribute (default 1 MiB).
	MaxStringBytes int
}

// Default limits.
const (
	DefaultMaxFileBytes        = 2 << 30
	DefaultMaxNodes            = 1 << 20
	DefaultMaxConstantElements = 1 << 31
	DefaultMaxTensorElements   = 1 << 40
	DefaultMaxStringBytes      = 1 << 20
)

// WithDefaults returns l with its zero fields set to the defaults.
func (l Limits) WithDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = DefaultMaxFileBytes
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxConstantElements <= 0 {
		l.MaxConstantElements = DefaultMaxConstantElements
	}
	if l.MaxTensorElements <= 0 {
		l.MaxTensorElements = DefaultMaxTensorElements
	}
	if l.MaxStringBytes <= 0 {
		l.MaxStringBytes = DefaultMaxStringBytes
	}
	return l
}

// ElementsWithin returns the product of the static extents of shape and whether it is at most
// max, without overflowing: a negative extent, or a product beyond max, reports false.
func ElementsWithin(shape []int64, max int64) (int64, bool) {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return 0, false
		}
		if d == 0 {
			n = 0
		}
	}
	if n == 0 {
		return 0, true
	}
	for _, d := range shape {
		if n > max/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// CheckTypeLimits checks that the static extents of t are at most l.MaxTensorElements (its
// symbolic extents are checked at run time by the generated code).
func CheckTypeLimits(t TensorType, l Limits) error {
	l = l.WithDefaults()
	var static []int64
	for _, d := range t.Shape {
		if v, ok := d.IsConst(); ok {
			static = append(static, v)
		}
	}
	if _, ok := ElementsWithin(static, l.MaxTensorElements); !ok {
		return fmt.Errorf("%w: type %s has more than %d elements", ErrLimit, t, l.MaxTensorElements)
	}
	return nil
}

// CheckLimits checks the graph against l: the number of ops and the declared size of every
// input and op result.
func CheckLimits(g *Graph, l Limits) error {
	l = l.WithDefaults()
	if len(g.Ops) > l.MaxNodes {
		return fmt.Errorf("%w: %d ops (at most %d)", ErrLimit, len(g.Ops), l.MaxNodes)
	}
	for _, in := range g.Inputs {
		if err := CheckTypeLimits(in.Type, l); err != nil {
			return fmt.Errorf("input %q: %w", in.Name, err)
		}
	}
	for _, op := range g.Ops {
		if err := CheckTypeLimits(op.Result.Type, l); err != nil {
			return fmt.Errorf("op %q (%s): %w", op.Name, op.Kind, err)
		}
	}
	return nil
}
