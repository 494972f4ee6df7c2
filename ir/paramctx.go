// This file holds ParamContext: the ops' requirements on the symbolic dims (the values for
// which the entry runs the graph's kernels), split into independent groups, so that a set is
// restricted only by the requirements on the dims it mentions.
//
// A detector has a requirement per class (TopK's k <= NonZero's n): intersecting all of them
// into every domain would give each of its sets every one of those run-time sizes, and every
// volume operation a column per size. A group of requirements that shares no dim with a set
// constrains values the set does not depend on: the set's emptiness, inclusions and points
// for the dims it mentions are the same with or without it (for satisfiable groups; with an
// unsatisfiable one the entry runs no kernel at all).

package ir

import (
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/graphc/graphc/volume"
)

// ParamContext is the conjunction of constraints on the symbolic dims: the constraints that
// restrict sets, as connected groups (two constraints sharing a dim are in the same group), and
// ranges that only simplify them.
type ParamContext struct {
	groups []paramGroup
	cons   []volume.Constraint // every constraint, the ranges last
	byDim  map[string][]int    // the constraints (indices in cons) on each dim
	text   string
	mu     sync.Mutex            // guards sets
	sets   map[string]volume.Set // the set of each combination of groups Restrict used
}

type paramGroup struct {
	params []string
	cons   []volume.Constraint
}

// RequirementsContext returns the context of g: every op's requirements, and the range of
// every bounded dim (the entry checks both before the kernels that use them run).
func RequirementsContext(g *Graph) *ParamContext {
	var cons []volume.Constraint
	for _, op := range g.Ops {
		cons = append(cons, op.Requires...)
	}
	return NewParamContext(cons, g.BoundConstraints())
}

// NewParamContext returns the context of the conjunction of cons and ranges (constraints on
// parameters only). Restrict intersects the constraints of cons; Gist simplifies with both.
// The ranges of bounded dims (0 <= n <= bound) are such: every volume operation on a set
// restricted by the ranges of a concatenation's hundred extents would carry their hundreds of
// constraints, and the sets are exact without them (for every value of the dims), while Gist
// needs them to find the constraints they make redundant.
func NewParamContext(cons, ranges []volume.Constraint) *ParamContext {
	c := &ParamContext{sets: map[string]volume.Set{}, cons: append(slices.Clip(cons), ranges...), byDim: map[string][]int{}}
	for i, k := range c.cons {
		for _, p := range k.Aff.ParamNames() {
			c.byDim[p] = append(c.byDim[p], i)
		}
	}
	for _, k := range cons {
		ps := k.Aff.ParamNames()
		// the groups sharing a dim with k merge into one, with k
		merged := paramGroup{params: slices.Clone(ps), cons: []volume.Constraint{k}}
		var rest []paramGroup
		for _, g := range c.groups {
			if slices.ContainsFunc(g.params, func(p string) bool { return slices.Contains(ps, p) }) {
				merged.cons = append(g.cons, merged.cons...)
				for _, p := range g.params {
					if !slices.Contains(merged.params, p) {
						merged.params = append(merged.params, p)
					}
				}
				continue
			}
			rest = append(rest, g)
		}
		c.groups = append(rest, merged)
	}
	var parts []string
	for _, g := range c.groups {
		for _, k := range g.cons {
			op := " >= 0"
			if k.Eq {
				op = " = 0"
			}
			parts = append(parts, k.Aff.String()+op)
		}
	}
	slices.Sort(parts)
	c.text = strings.Join(parts, " and ")
	return c
}

// String lists the constraints (sorted: a key of the context).
func (c *ParamContext) String() string { return c.text }

// Restrict returns s restricted by the groups of constraints on the dims s, or a set of also,
// mentions (pass the sets s is compared with).
func (c *ParamContext) Restrict(s volume.Set, also ...volume.Set) volume.Set {
	if len(c.groups) == 0 {
		return s
	}
	ps := s.DropUnusedParams().Params()
	for _, a := range also {
		ps = append(ps, a.DropUnusedParams().Params()...)
	}
	var pick []int
	for i, g := range c.groups {
		if slices.ContainsFunc(g.params, func(p string) bool { return slices.Contains(ps, p) }) {
			pick = append(pick, i)
		}
	}
	if len(pick) == 0 {
		return s
	}
	var key []byte
	for _, i := range pick {
		key = strconv.AppendInt(append(key, ' '), int64(i), 10)
	}
	ctx := c.set(string(key), func() (cons []volume.Constraint) {
		for _, i := range pick {
			cons = append(cons, c.groups[i].cons...)
		}
		return cons
	})
	return s.IntersectParams(ctx)
}

// set returns the set of the constraints cons gives, cached by key.
func (c *ParamContext) set(key string, cons func() []volume.Constraint) volume.Set {
	c.mu.Lock()
	ctx, ok := c.sets[key]
	c.mu.Unlock()
	if !ok {
		ctx = SetFromParamConstraints(nil, cons())
		c.mu.Lock()
		c.sets[key] = ctx
		c.mu.Unlock()
	}
	return ctx
}

// Gist returns a set that agrees with s wherever the context holds, without the constraints
// the context implies, over the dims it still mentions: a required volume that depends on a
// dim only through a bound the context makes redundant (a concatenation's operand, whose
// offset is the sum of the extents before it, needs the elements below its own extent once
// every extent is non-negative) no longer carries it. The context used is its constraints on
// the dims s mentions (a weaker context keeps more constraints, never fewer points).
func (c *ParamContext) Gist(s volume.Set) volume.Set {
	s = s.DropUnusedParams()
	ps := s.Params()
	var pick []int
	for _, p := range ps {
		for _, i := range c.byDim[p] {
			if !slices.Contains(pick, i) && !slices.ContainsFunc(c.cons[i].Aff.ParamNames(), func(q string) bool { return !slices.Contains(ps, q) }) {
				pick = append(pick, i)
			}
		}
	}
	if len(pick) == 0 {
		return s
	}
	slices.Sort(pick)
	key := []byte{'g'}
	for _, i := range pick {
		key = strconv.AppendInt(append(key, ' '), int64(i), 10)
	}
	ctx := c.set(string(key), func() (cons []volume.Constraint) {
		for _, i := range pick {
			cons = append(cons, c.cons[i])
		}
		return cons
	})
	return s.GistParams(ctx).DropUnusedParams()
}
