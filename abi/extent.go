// This file evaluates and prints extents.

package abi

import (
	"fmt"
	"sort"
	"strings"
)

// Eval returns the extent for the given dims; ok is false when a dim it uses is not bound.
func (e Extent) Eval(dims map[string]int64) (int64, bool) {
	v := e.C
	for n, c := range e.P {
		d, ok := dims[n]
		if !ok {
			return 0, false
		}
		v += c * d
	}
	for _, f := range e.F {
		num, ok := f.N.Eval(dims)
		if !ok || f.D <= 0 {
			return 0, false
		}
		q := num / f.D
		if num%f.D != 0 && num < 0 {
			q-- // floor, not truncation
		}
		v += f.K * q
	}
	return v, true
}

// String prints the extent as graphc prints shapes: 512, N, 2*N + 1, floor((N + 1)/2).
func (e Extent) String() string {
	var terms []string
	names := make([]string, 0, len(e.P))
	for n := range e.P {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		switch c := e.P[n]; c {
		case 0:
		case 1:
			terms = append(terms, n)
		default:
			terms = append(terms, fmt.Sprintf("%d*%s", c, n))
		}
	}
	for _, f := range e.F {
		t := fmt.Sprintf("floor((%s)/%d)", f.N, f.D)
		if f.K != 1 {
			t = fmt.Sprintf("%d*%s", f.K, t)
		}
		terms = append(terms, t)
	}
	if e.C != 0 || len(terms) == 0 {
		terms = append(terms, fmt.Sprint(e.C))
	}
	return strings.Join(terms, " + ")
}
