// This file holds helpers the shape-manipulating ops share: shape attributes written as lists
// of quasi-affine extents ("[N, 3 * 4]"), axis normalisation, and the conversion of a
// quasi-affine expression of iteration indices and symbolic dims into an i64 body expression.

package ir

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/volume"
)

// ParseExtents parses a shape attribute such as "[N, 12]" or "[]" into extents.
func ParseExtents(s string) ([]volume.Aff, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") || !strings.HasSuffix(s, "]") {
		return nil, fmt.Errorf("bad shape %q (want e.g. [N, 12])", s)
	}
	inner := strings.TrimSpace(s[1 : len(s)-1])
	if inner == "" {
		return []volume.Aff{}, nil
	}
	var out []volume.Aff
	for _, part := range splitTop(inner, ',') {
		d, err := volume.ParseAff(part, nil)
		if err != nil {
			return nil, fmt.Errorf("bad extent %q in shape %q: %w", part, s, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// ExtentsString prints extents as a shape attribute: "[N, 12]".
func ExtentsString(shape []volume.Aff) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// normAxis maps a possibly negative axis into [0, rank).
func normAxis(axis int64, rank int) (int, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), nil
}

// constExtents returns the extents as integers, or an error naming what needs them static.
func constExtents(shape []volume.Aff, what string) ([]int64, error) {
	out := make([]int64, len(shape))
	for i, d := range shape {
		c, ok := d.IsConst()
		if !ok {
			return nil, fmt.Errorf("%s needs a static extent at dimension %d, got %s", what, i, d.String())
		}
		out[i] = c
	}
	return out, nil
}

// AffScalar returns a as an i64 body expression: iteration dimension i is Index(i), symbolic
// dims are SParam, floors are floor divisions.
func AffScalar(a volume.Aff) *Scalar {
	var s *Scalar
	add := func(t *Scalar) {
		if s == nil {
			s = t
		} else {
			s = Bin(SAdd, s, t)
		}
	}
	scaled := func(t *Scalar, c int64) *Scalar {
		if c == 1 {
			return t
		}
		return Bin(SMul, t, ConstI(I64, c))
	}
	for i, c := range a.Dims {
		if c != 0 {
			add(scaled(Index(i), c))
		}
	}
	for _, p := range a.Params {
		add(scaled(&Scalar{Op: SParam, Name: p.Name, Type: I64}, p.Coef))
	}
	for _, f := range a.Floors {
		add(scaled(FloorDivScalar(AffScalar(f.Num), f.Den), f.Coef))
	}
	if a.Const != 0 || s == nil {
		add(ConstI(I64, a.Const))
	}
	return s
}

// FloorDivScalar returns floor(a / d) for an i64 expression a and a constant d > 0 (integer
// division in the body truncates toward zero, so negative numerators are shifted first).
func FloorDivScalar(a *Scalar, d int64) *Scalar {
	if d == 1 {
		return a
	}
	neg := Bin(SLt, a, ConstI(I64, 0))
	shifted := Bin(SSub, a, ConstI(I64, d-1))
	return Bin(SDiv, Select(neg, shifted, a), ConstI(I64, d))
}

// falseGuard is a guard that never holds: the access of an operand that is never read.
func falseGuard() []volume.Constraint {
	return []volume.Constraint{{Aff: volume.AffConst(-1)}}
}

// rangeGuard returns lo <= e < hi.
func rangeGuard(e, lo, hi volume.Aff) []volume.Constraint {
	return []volume.Constraint{volume.GE(e, lo), volume.LT(e, hi)}
}

// errorf returns an error; the builders wrap it with the op's name.
func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
