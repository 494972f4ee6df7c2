// This file counts the points of bounded sets.

package volume

import "fmt"

// Card returns the number of integer points of s for the given parameter values (nil when s
// has no parameters). The innermost loop of the scan is counted in closed form, so a
// 512×512×512 domain costs 512² steps, not 512³.
func (s Set) Card(params map[string]int64) (n int64, err error) {
	for _, p := range s.u.params {
		if _, ok := params[p]; !ok {
			return 0, fmt.Errorf("%w: parameter %s is not bound", ErrSpaceMismatch, p)
		}
	}
	if len(s.u.pieces) == 0 {
		return 0, nil
	}
	var nd int
	for _, sp := range s.u.spaces {
		nd = max(nd, sp.out.n())
	}
	total := int64(0)
	for _, sp := range s.u.spaces {
		sub := Set{union{params: s.u.params, spaces: []space{sp}}}
		for _, p := range s.u.pieces {
			if (space{p.in, p.out}).same(sp) {
				sub.u.pieces = append(sub.u.pieces, p)
			}
		}
		var ast Node
		if err := Try(func() { ast = sub.scan() }); err != nil {
			return 0, err
		}
		c, err := countAST(ast, make([]int64, sp.out.n()), params)
		if err != nil {
			return 0, err
		}
		total += c
	}
	return total, nil
}

// countAST counts leaf executions; an innermost For whose body is a Leaf is counted in closed form.
func countAST(n Node, x []int64, params map[string]int64) (int64, error) {
	pv := func(name string) (int64, bool) { v, ok := params[name]; return v, ok }
	switch n := n.(type) {
	case nil:
		return 0, nil
	case *Leaf:
		return 1, nil
	case *Block:
		var t int64
		for _, c := range n.Nodes {
			k, err := countAST(c, x, params)
			if err != nil {
				return 0, err
			}
			t += k
		}
		return t, nil
	case *For:
		if _, ok := n.Body.(*Leaf); ok {
			lo, hi := int64(-1<<62), int64(1<<62)
			for _, b := range n.Lower {
				v, err := b.Eval(x, pv)
				if err != nil {
					return 0, err
				}
				lo = max(lo, v)
			}
			for _, b := range n.Upper {
				v, err := b.Eval(x, pv)
				if err != nil {
					return 0, err
				}
				hi = min(hi, v)
			}
			step := max(n.Stride, 1)
			if step > 1 {
				off, err := n.Offset.Eval(x, pv)
				if err != nil {
					return 0, err
				}
				lo += modFloor(off-lo, step)
			}
			if hi < lo {
				return 0, nil
			}
			return (hi-lo)/step + 1, nil
		}
	}
	var t int64
	err := walkCount(n, x, params, &t)
	return t, err
}

func walkCount(n Node, x []int64, params map[string]int64, t *int64) error {
	switch f := n.(type) {
	case *For:
		if _, ok := f.Body.(*Leaf); ok {
			c, err := countAST(f, x, params)
			*t += c
			return err
		}
		pv := func(name string) (int64, bool) { v, ok := params[name]; return v, ok }
		lo, hi := int64(-1<<62), int64(1<<62)
		for _, b := range f.Lower {
			v, err := b.Eval(x, pv)
			if err != nil {
				return err
			}
			lo = max(lo, v)
		}
		for _, b := range f.Upper {
			v, err := b.Eval(x, pv)
			if err != nil {
				return err
			}
			hi = min(hi, v)
		}
		step := max(f.Stride, 1)
		if step > 1 {
			off, err := f.Offset.Eval(x, pv)
			if err != nil {
				return err
			}
			lo += modFloor(off-lo, step)
		}
		for v := lo; v <= hi; v += step {
			x[f.Dim] = v
			if err := walkCount(f.Body, x, params, t); err != nil {
				return err
			}
		}
		return nil
	case *Block:
		for _, c := range f.Nodes {
			if err := walkCount(c, x, params, t); err != nil {
				return err
			}
		}
		return nil
	case *Assign:
		pv := func(name string) (int64, bool) { v, ok := params[name]; return v, ok }
		v, err := f.Value.Eval(x, pv)
		if err != nil {
			return err
		}
		x[f.Dim] = v
		return walkCount(f.Body, x, params, t)
	case *If:
		pv := func(name string) (int64, bool) { v, ok := params[name]; return v, ok }
		for _, c := range f.Conds {
			v, err := c.Aff.Eval(x, pv)
			if err != nil {
				return err
			}
			if c.Eq && v != 0 || !c.Eq && v < 0 {
				return nil
			}
		}
		return walkCount(f.Then, x, params, t)
	case *Leaf:
		*t++
		return nil
	}
	return nil
}
