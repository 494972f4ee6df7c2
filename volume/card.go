// This file holds Card, which counts the points of bounded sets on their scan.

package volume

import "fmt"

// Card returns the number of integer points of s for the given parameter values (nil when s
// has no parameters). It counts the iterations of the scan of s without enumerating them where
// it can: a loop whose body does not depend on the loop dimension counts as its trip count
// times one count of the body, so a 512×512×512 box costs three evaluations and a triangle
// 512² costs 512; loops whose body depends on the dimension (triangles, guards, strides
// inside) are iterated.
func (s Set) Card(params map[string]int64) (n int64, err error) {
	for _, p := range s.u.params {
		if _, ok := params[p]; !ok {
			return 0, fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, p)
		}
	}
	if len(s.u.pieces) == 0 {
		return 0, nil
	}
	total := int64(0)
	for _, sp := range s.u.spaces {
		sub := Set{union{params: s.u.params, spaces: []space{sp}}}
		for _, p := range s.u.pieces {
			if (space{p.in, p.out}).same(sp) {
				sub.u.pieces = append(sub.u.pieces, p)
			}
		}
		if len(sub.u.pieces) == 0 {
			continue
		}
		var ast Node
		if err := Try(func() { ast = sub.scan() }); err != nil {
			return 0, err
		}
		nd := sp.in.n() + sp.out.n()
		c, err := compileAST(ast, nd, params)
		if err != nil {
			return 0, err
		}
		var k int64
		if err := Try(func() { k = c.count(make([]int64, nd)) }); err != nil {
			return 0, err
		}
		total = addc(total, k)
	}
	return total, nil
}

// count returns the number of leaf executions of c at the outer values x (checked arithmetic:
// it panics with overflow beyond int64).
func (c *cNode) count(x []int64) int64 {
	switch c.kind {
	case 'l':
		return 1
	case 'b':
		var t int64
		for _, k := range c.kids {
			t = addc(t, k.count(x))
		}
		return t
	case 'a':
		x[c.dim] = c.offset.eval(x)
		return c.kids[0].count(x)
	case 'i':
		if !c.holds(x) {
			return 0
		}
		return c.kids[0].count(x)
	case 'f':
		lo, hi := c.bounds(x)
		if hi < lo {
			return 0
		}
		body := c.kids[0]
		if !body.free[c.dim] {
			x[c.dim] = lo
			return mulc((hi-lo)/c.stride+1, body.count(x))
		}
		var t int64
		for v := lo; v <= hi; v += c.stride {
			x[c.dim] = v
			t = addc(t, body.count(x))
		}
		return t
	}
	return 0
}
