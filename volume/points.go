// This file enumerates points: of bounded sets, and of maps through Wrap.

package volume

import (
	"fmt"
	"slices"
)

// Wrap returns the set { [x, y] : x -> y ∈ m } whose dims are m's input dims followed by its
// output dims (isl_map_wrap, with the pair flattened into one anonymous tuple).
func (m Map) Wrap() Set {
	r := union{params: m.u.params}
	for _, s := range m.u.spaces {
		r.addSpace(space{tuple{}, tuple{"", append(slices.Clone(s.in.dims), s.out.dims...)}})
	}
	for _, p := range m.u.pieces {
		c := p.clone()
		c.out = tuple{"", append(slices.Clone(p.in.dims), p.out.dims...)}
		c.in = tuple{}
		r.pieces = append(r.pieces, c)
	}
	return Set{r}
}

// Points returns the points of a bounded set (single space) in lexicographic order, for the
// given parameter values. It fails with ErrUnbounded for unbounded sets and when there are more
// than limit points (limit <= 0: no limit).
func (s Set) Points(params map[string]int64, limit int) ([][]int64, error) {
	if len(s.u.pieces) == 0 {
		return nil, nil
	}
	var ast Node
	if err := Try(func() { ast = s.scan() }); err != nil {
		return nil, err
	}
	var out [][]int64
	errLimit := fmt.Errorf("%w: more than %d points", ErrUnbounded, limit)
	var failed bool
	err := Walk(ast, s.NDim(), params, func(_ int, x []int64) {
		if limit > 0 && len(out) >= limit {
			failed = true
			return
		}
		out = append(out, slices.Clone(x))
	})
	if err != nil {
		return nil, err
	}
	if failed {
		return nil, errLimit
	}
	slices.SortFunc(out, slices.Compare[[]int64])
	return out, nil
}
