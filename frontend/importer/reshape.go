// This file holds the extent arithmetic of reshapes that every format shares: the element
// count of a shape (a constant times at most one symbolic extent) and the inference of a
// Reshape's -1 extent, with symbolic extents cancelling as factors.

package importer

import (
	"fmt"

	"github.com/graphc/graphc/volume"
)

// ExtentProduct multiplies extents; a product of two symbolic extents is not quasi-affine.
func ExtentProduct(ds []volume.Aff) (volume.Aff, error) {
	p := volume.AffConst(1)
	for _, d := range ds {
		switch k, ok := d.IsConst(); {
		case ok:
			p = p.Mul(k)
		default:
			c, pok := p.IsConst()
			if !pok {
				return p, fmt.Errorf("%w: the product of the symbolic extents %s and %s is not quasi-affine (bind one of them with --dim NAME=VALUE)", ErrUnsupported, p.String(), d.String())
			}
			p = d.Mul(c)
		}
	}
	return p, nil
}

// divideExtent returns total / known where both are products of extents: a constant, or a
// constant times one symbolic extent.
func divideExtent(total, known volume.Aff, errInvalid error) (volume.Aff, error) {
	kc, kok := known.IsConst()
	tc, tok := total.IsConst()
	switch {
	case kok && kc == 0:
		return volume.Aff{}, fmt.Errorf("%w: cannot infer the -1 extent next to a zero extent", errInvalid)
	case kok && tok:
		if tc%kc != 0 {
			return volume.Aff{}, fmt.Errorf("%w: %d elements do not reshape into multiples of %d", errInvalid, tc, kc)
		}
		return volume.AffConst(tc / kc), nil
	case kok:
		// total = c·S (S symbolic) divided by a constant
		q := total.FloorDiv(kc)
		if q.Mul(kc).Equal(total) {
			return q, nil
		}
	default:
		// total = a·S, known = b·S: the ratio a/b
		if len(total.Params) == 1 && len(known.Params) == 1 && total.Params[0].Name == known.Params[0].Name {
			a, b := total.Params[0].Coef, known.Params[0].Coef
			if b != 0 && a%b == 0 && known.Mul(a/b).Equal(total) {
				return volume.AffConst(a / b), nil
			}
		}
	}
	return volume.Aff{}, fmt.Errorf("%w: cannot infer the -1 extent: %s elements over %s", ErrUnsupported, total.String(), known.String())
}

// InferExtent returns the -1 extent of a reshape: the product of the operand's extents over
// the product of the known ones. Symbolic extents cancel as factors ([B, T, 4, 8] to
// [B, T, -1] gives 32) so that the result stays quasi-affine when the products are not.
// Bad counts are errInvalid (the format's ErrInvalid); non-quasi-affine ones ErrUnsupported.
func InferExtent(total, known []volume.Aff, errInvalid error) (volume.Aff, error) {
	rest := map[string]int{}
	var restDims []volume.Aff
	for _, d := range total {
		if _, ok := d.IsConst(); !ok {
			rest[d.String()]++
			restDims = append(restDims, d)
		}
	}
	var knownConst []volume.Aff
	for _, d := range known {
		if _, ok := d.IsConst(); ok {
			knownConst = append(knownConst, d)
			continue
		}
		if rest[d.String()] == 0 {
			// no common factor: the products themselves must be quasi-affine
			t, err := ExtentProduct(total)
			if err != nil {
				return t, err
			}
			k, err := ExtentProduct(known)
			if err != nil {
				return k, err
			}
			return divideExtent(t, k, errInvalid)
		}
		rest[d.String()]--
	}
	var left []volume.Aff
	for _, d := range total {
		if _, ok := d.IsConst(); ok {
			left = append(left, d)
		}
	}
	for _, d := range restDims {
		if rest[d.String()] > 0 {
			rest[d.String()]--
			left = append(left, d)
		}
	}
	t, err := ExtentProduct(left)
	if err != nil {
		return t, err
	}
	k, err := ExtentProduct(knownConst)
	if err != nil {
		return k, err
	}
	return divideExtent(t, k, errInvalid)
}
