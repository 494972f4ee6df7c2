// This file derives exact Presburger descriptions of where a constant tensor holds each of its
// values, for constants with at most three distinct values (masks: bool, 0/1, 0/-inf). It
// proposes affine candidates (the smallest polyhedron with faces along the dims and their
// pairwise sums and differences; then congruences such as checkerboards) and verifies every
// element against them: exact or nothing. Time is linear in the constant; results are cached
// per tensor, since the where builder asks again whenever the op is rebuilt.

package ir

import (
	"fmt"
	"math"
	"sync"

	"github.com/graphc/graphc/volume"
)

// MaxConstRegionElems bounds the constants whose structure is analysed (64 Mi elements, about
// a second of verification); larger ones are used as data only. A variable for the tests.
var MaxConstRegionElems int64 = 1 << 26

// maxFactValues is the number of distinct values a constant may have to be analysed.
const maxFactValues = 3

// maxActiveDims bounds the dims a constant's values may vary along (directions grow as k²).
const maxActiveDims = 4

// ConstRegion says that the elements of a constant in Region (a set over its index space,
// whose dims are unnamed, with the given symbolic dims as parameters) equal F (floats) or I
// (integers and bool).
type ConstRegion struct {
	Region volume.Set
	F      float64
	I      int64
}

// ConstRegions returns, for each distinct value of t that an exact description was found for,
// the set of indices holding it (every value when all are described, which is the case for
// two values whenever one is). The reason is non-empty when t was too large to analyse.
func ConstRegions(t *Tensor, params []string) (regions []ConstRegion, reason string) {
	key := constRegionKey{t, fmt.Sprint(params), tensorHash(t)}
	constRegionMu.Lock()
	if c, ok := constRegionCache[key]; ok {
		constRegionMu.Unlock()
		return c.regions, c.reason
	}
	constRegionMu.Unlock()
	regions, reason = constRegions(t, params)
	for _, r := range regions {
		if r.Region.Err() != nil {
			// volume gave up on a region: no description (the conservative answer: every
			// element is unknown)
			regions, reason = nil, ""
			break
		}
	}
	constRegionMu.Lock()
	if len(constRegionCache) >= maxConstRegionCache {
		clear(constRegionCache)
	}
	constRegionCache[key] = constRegionResult{regions, reason}
	constRegionMu.Unlock()
	return regions, reason
}

// maxConstRegionCache bounds the cache of ConstRegions (a model has a few masks).
const maxConstRegionCache = 256

type constRegionKey struct {
	t      *Tensor
	params string
	hash   uint64 // of the data: a tensor changed in place is analysed again
}

// tensorHash is FNV-1a over t's elements (linear, several times cheaper than the analysis).
func tensorHash(t *Tensor) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) {
		h ^= v
		h *= 1099511628211
	}
	mix(uint64(t.Elem))
	for _, d := range t.Shape {
		mix(uint64(d))
	}
	if t.IsRaw() {
		for _, b := range t.Bytes() {
			mix(uint64(b))
		}
		return h
	}
	for _, f := range t.F {
		mix(math.Float64bits(f))
	}
	for _, i := range t.I {
		mix(uint64(i))
	}
	return h
}

type constRegionResult struct {
	regions []ConstRegion
	reason  string
}

var (
	constRegionMu    sync.Mutex
	constRegionCache = map[constRegionKey]constRegionResult{}
)

// maxValueProbe bounds the elements manyValues reads of a constant too large to analyse.
const maxValueProbe = 1 << 16

// manyValues reports whether more than k distinct values occur among the first limit elements
// of t.
func manyValues(t *Tensor, k, limit int) bool {
	seen := make(map[uint64]bool, k+1)
	for i := 0; i < t.Len() && i < limit; i++ {
		seen[t.Bits(i)] = true
		if len(seen) > k {
			return true
		}
	}
	return false
}

func constRegions(t *Tensor, params []string) (facts []ConstRegion, reason string) {
	n := t.Len()
	if n == 0 {
		return nil, ""
	}
	if int64(n) > MaxConstRegionElems {
		if manyValues(t, maxFactValues, maxValueProbe) {
			// a weight tensor: the analysis would describe none of its values either, so its
			// size is not worth a warning (vgg11_bn's 102M-element weights warned on every
			// compile)
			return nil, ""
		}
		return nil, fmt.Sprintf("%d elements, more than the %d analysed for known values", n, MaxConstRegionElems)
	}
	float := t.Elem.IsFloat()
	key := t.Bits
	var vals []uint64
	cls := make([]uint8, n) // the index in vals of each element's value
	for i := 0; i < n; i++ {
		k := key(i)
		c := -1
		for j, v := range vals {
			if v == k {
				c = j
				break
			}
		}
		if c < 0 {
			if len(vals) == maxFactValues {
				return nil, ""
			}
			vals = append(vals, k)
			c = len(vals) - 1
		}
		cls[i] = uint8(c)
	}
	region := func(c int, r volume.Set) ConstRegion {
		if float {
			return ConstRegion{Region: r, F: math.Float64frombits(vals[c])}
		}
		return ConstRegion{Region: r, I: int64(vals[c])}
	}
	box := volume.Box(params, "", nil, constAffs(t.Shape))
	if len(vals) == 1 {
		return []ConstRegion{region(0, box)}, ""
	}
	sp := newConstSpace(t.Shape, cls)
	if len(sp.active) > maxActiveDims {
		return nil, ""
	}
	regions := make([]*volume.Set, len(vals))
	for c := range vals {
		if r, ok := sp.describe(uint8(c), params, box); ok {
			regions[c] = &r
		}
	}
	// one value left undescribed is the rest of the box
	missing := -1
	for c, r := range regions {
		if r == nil {
			if missing >= 0 {
				missing = -2
				break
			}
			missing = c
		}
	}
	if missing >= 0 {
		rest := box
		for _, r := range regions {
			if r != nil {
				rest = rest.Subtract(*r)
			}
		}
		rest = rest.Coalesce()
		regions[missing] = &rest
	}
	for c, r := range regions {
		if r != nil {
			facts = append(facts, region(c, *r))
		}
	}
	return facts, ""
}

func constAffs(shape []int64) []volume.Aff {
	out := make([]volume.Aff, len(shape))
	for i, e := range shape {
		out[i] = volume.AffConst(e)
	}
	return out
}

// constSpace is a constant's index space with each element's value class.
type constSpace struct {
	shape  []int64
	cls    []uint8
	active []int // the dims the values vary along
}

func newConstSpace(shape []int64, cls []uint8) *constSpace {
	sp := &constSpace{shape: shape, cls: cls}
	stride := int64(1)
	strides := make([]int64, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = stride
		stride *= shape[d]
	}
	for d := range shape {
		if shape[d] <= 1 {
			continue
		}
		varies := false
		sp.each(func(i int, x []int64) bool {
			if x[d] > 0 && cls[i] != cls[i-int(strides[d])] {
				varies = true
				return false
			}
			return true
		})
		if varies {
			sp.active = append(sp.active, d)
		}
	}
	return sp
}

// each visits every element in row-major order with its index; visit returns false to stop.
func (sp *constSpace) each(visit func(i int, x []int64) bool) {
	x := make([]int64, len(sp.shape))
	for i := range sp.cls {
		if !visit(i, x) {
			return
		}
		for d := len(x) - 1; d >= 0; d-- {
			if x[d]++; x[d] < sp.shape[d] {
				break
			}
			x[d] = 0
		}
	}
}

// directions returns the candidate face normals over the active dims: ±e_a and ±e_a ± e_b.
func (sp *constSpace) directions() [][]int64 {
	r := len(sp.shape)
	var out [][]int64
	for i, a := range sp.active {
		for _, s := range []int64{1, -1} {
			v := make([]int64, r)
			v[a] = s
			out = append(out, v)
		}
		for _, b := range sp.active[i+1:] {
			for _, s := range []int64{1, -1} {
				for _, t := range []int64{1, -1} {
					v := make([]int64, r)
					v[a], v[b] = s, t
					out = append(out, v)
				}
			}
		}
	}
	return out
}

func dotInts(a, x []int64) int64 {
	s := int64(0)
	for i, c := range a {
		s += c * x[i]
	}
	return s
}

// describe returns an exact description of the indices of class c: the candidate polyhedron
// when it holds exactly those elements, else a congruence pattern (a·x mod m decides the
// class), else false.
func (sp *constSpace) describe(c uint8, params []string, box volume.Set) (volume.Set, bool) {
	dirs := sp.directions()
	mins := make([]int64, len(dirs))
	for k := range mins {
		mins[k] = math.MaxInt64
	}
	any := false
	sp.each(func(i int, x []int64) bool {
		if sp.cls[i] == c {
			any = true
			for k, a := range dirs {
				mins[k] = min(mins[k], dotInts(a, x))
			}
		}
		return true
	})
	if !any {
		return volume.Set{}, false
	}
	exact := true
	sp.each(func(i int, x []int64) bool {
		in := true
		for k, a := range dirs {
			if dotInts(a, x) < mins[k] {
				in = false
				break
			}
		}
		if in != (sp.cls[i] == c) {
			exact = false
			return false
		}
		return true
	})
	if exact {
		var cons []volume.Constraint
		for k, a := range dirs {
			cons = append(cons, volume.GE(affOfCoefs(a), volume.AffConst(mins[k])))
		}
		return box.Intersect(volume.SetFromConstraints(params, "", make([]string, len(sp.shape)), cons)).Coalesce(), true
	}
	return sp.congruence(c, params, box)
}

func affOfCoefs(a []int64) volume.Aff {
	r := volume.AffConst(0)
	for d, c := range a {
		if c != 0 {
			r = r.Add(volume.AffDim(d).Mul(c))
		}
	}
	return r
}

// congruence looks for a modulus m in 2..4 and a direction a (over the active dims, entries
// 0 or ±1) such that the class of every element is a function of a·x mod m.
func (sp *constSpace) congruence(c uint8, params []string, box volume.Set) (volume.Set, bool) {
	r := len(sp.shape)
	var dirs [][]int64
	for _, a := range sp.active {
		v := make([]int64, r)
		v[a] = 1
		dirs = append(dirs, v)
	}
	for i, a := range sp.active {
		for _, b := range sp.active[i+1:] {
			for _, s := range []int64{1, -1} {
				v := make([]int64, r)
				v[a], v[b] = 1, s
				dirs = append(dirs, v)
			}
		}
	}
	for _, a := range dirs {
		for m := int64(2); m <= 4; m++ {
			var of [4]int // class of each residue + 1 (0: not seen)
			ok := true
			sp.each(func(i int, x []int64) bool {
				res := ((dotInts(a, x) % m) + m) % m
				if of[res] == 0 {
					of[res] = int(sp.cls[i]) + 1
				} else if of[res] != int(sp.cls[i])+1 {
					ok = false
					return false
				}
				return true
			})
			if !ok {
				continue
			}
			set := volume.EmptySet(params, "", make([]string, r))
			found := false
			for res := int64(0); res < m; res++ {
				if of[res] != int(c)+1 {
					continue
				}
				found = true
				// a·x - res - m·floor((a·x - res)/m) = 0
				e := affOfCoefs(a).AddConst(-res)
				con := volume.Constraint{Aff: e.Sub(e.FloorDiv(m).Mul(m)), Eq: true}
				set = set.Union(box.Intersect(volume.SetFromConstraints(params, "", make([]string, r), []volume.Constraint{con})))
			}
			if found {
				return set.Coalesce(), true
			}
		}
	}
	return volume.Set{}, false
}
