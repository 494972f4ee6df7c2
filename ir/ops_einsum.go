// This file declares einsum: a contraction written in Einstein notation ("ij,jk->ik"). One
// iteration dim per distinct label (output labels first, then the summed ones); each operand
// reads its labels, so repeated labels read diagonals and absent labels broadcast.

package ir

import (
	"fmt"
	"slices"
	"strings"

	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name:        "einsum",
		Summary:     "Einstein summation: sums the product of the operands over the labels absent from the output",
		Example:     `%c = einsum(%a, %b) {equation = "bij,bjk->bik"} : f32[2, 3, 5]`,
		MinOperands: 1, MaxOperands: -1,
		Attrs: []AttrDef{{Name: "equation", Kind: AttrString, Doc: "operand labels, '->', result labels; '...' stands for broadcast dims"}},
		Build: buildEinsum,
	})
}

// einsumTerm is one side of an equation: its labels, with -1 standing for the ellipsis.
type einsumTerm []int

// parseEinsumTerm parses the labels of one term ("ij", "...ij", "i...j").
func parseEinsumTerm(s string) (einsumTerm, error) {
	var out einsumTerm
	ell := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
		case c == '.':
			if ell || !strings.HasPrefix(s[i:], "...") {
				return nil, fmt.Errorf("bad ellipsis in term %q", s)
			}
			ell = true
			out = append(out, -1)
			i += 2
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			out = append(out, int(c))
		default:
			return nil, fmt.Errorf("bad label %q in term %q", c, s)
		}
	}
	return out, nil
}

// parseEinsum splits an equation into operand terms and the output term (computed as numpy
// does when the equation has no "->": the labels used once, sorted, after the ellipsis).
func parseEinsum(eq string) (ins []einsumTerm, out einsumTerm, err error) {
	lhs, rhs, explicit := strings.Cut(eq, "->")
	for _, t := range strings.Split(lhs, ",") {
		term, err := parseEinsumTerm(t)
		if err != nil {
			return nil, nil, err
		}
		ins = append(ins, term)
	}
	if explicit {
		out, err = parseEinsumTerm(rhs)
		if err != nil {
			return nil, nil, err
		}
		for i, l := range out {
			if slices.Contains(out[i+1:], l) {
				return nil, nil, fmt.Errorf("label %q repeated in the output", rune(l))
			}
		}
		return ins, out, nil
	}
	count := map[int]int{}
	hasEll := false
	for _, t := range ins {
		for _, l := range t {
			if l == -1 {
				hasEll = true
			} else {
				count[l]++
			}
		}
	}
	if hasEll {
		out = append(out, -1)
	}
	var once []int
	for l, n := range count {
		if n == 1 {
			once = append(once, l)
		}
	}
	slices.Sort(once)
	return ins, append(out, once...), nil
}

func buildEinsum(b *Builder) error {
	ins, outTerm, err := parseEinsum(b.Op.Attrs.Str("equation", ""))
	if err != nil {
		return b.Errorf("equation: %v", err)
	}
	if len(ins) != b.NumIn() {
		return b.Errorf("equation has %d operand terms for %d operands", len(ins), b.NumIn())
	}
	elem := b.In(0).Elem
	// ellipsis rank: the largest number of dims an ellipsis covers
	ellRank := 0
	for k, t := range ins {
		in := b.In(k)
		if in.Elem != elem {
			return b.Errorf("operand #%d has element type %s, operand #0 has %s", k, in.Elem, elem)
		}
		n := len(t)
		if slices.Contains(t, -1) {
			n--
			if in.Rank() < n {
				return b.Errorf("operand #%d has rank %d, its term has %d labels", k, in.Rank(), n)
			}
			ellRank = max(ellRank, in.Rank()-n)
		} else if in.Rank() != n {
			return b.Errorf("operand #%d has rank %d, its term has %d labels", k, in.Rank(), n)
		}
	}
	// extents: labels, and the broadcast ellipsis dims
	ext := map[int]volume.Aff{}
	ellExt := make([]volume.Aff, ellRank)
	for i := range ellExt {
		ellExt[i] = volume.AffConst(1)
	}
	for k, t := range ins {
		in := b.In(k)
		d := 0
		for _, l := range t {
			if l == -1 {
				n := in.Rank() - (len(t) - 1)
				for e := 0; e < n; e++ {
					pos := ellRank - n + e
					cur, v := ellExt[pos], in.Shape[d+e]
					c, cok := cur.IsConst()
					w, wok := v.IsConst()
					switch {
					case wok && w == 1:
					case cok && c == 1:
						ellExt[pos] = v
					case !cur.Equal(v):
						return b.Errorf("operand #%d: broadcast dim %d is %s, another operand has %s", k, d+e, v.String(), cur.String())
					}
				}
				d += n
				continue
			}
			if cur, ok := ext[l]; ok && !cur.Equal(in.Shape[d]) {
				return b.Errorf("label %q has extent %s in operand #%d and %s elsewhere", rune(l), in.Shape[d].String(), k, cur.String())
			}
			ext[l] = in.Shape[d]
			d++
		}
	}
	// iteration dims: output labels (ellipsis expanded) then the summed labels in order of appearance
	dimOf := map[int]int{}
	var dimExt []volume.Aff
	var iters []IterKind
	ellDim := -1
	outIdx := []volume.Aff{}
	var outShape []volume.Aff
	for _, l := range outTerm {
		if l == -1 {
			ellDim = len(dimExt)
			for e := 0; e < ellRank; e++ {
				outIdx = append(outIdx, volume.AffDim(len(dimExt)))
				outShape = append(outShape, ellExt[e])
				dimExt = append(dimExt, ellExt[e])
				iters = append(iters, Parallel)
			}
			continue
		}
		e, ok := ext[l]
		if !ok {
			return b.Errorf("output label %q appears in no operand", rune(l))
		}
		dimOf[l] = len(dimExt)
		outIdx = append(outIdx, volume.AffDim(len(dimExt)))
		outShape = append(outShape, e)
		dimExt = append(dimExt, e)
		iters = append(iters, Parallel)
	}
	if ellDim < 0 && ellRank > 0 {
		// the ellipsis dims are summed
		ellDim = len(dimExt)
		for e := 0; e < ellRank; e++ {
			dimExt = append(dimExt, ellExt[e])
			iters = append(iters, Reduction)
		}
	}
	for _, t := range ins {
		for _, l := range t {
			if _, ok := dimOf[l]; !ok && l != -1 {
				dimOf[l] = len(dimExt)
				dimExt = append(dimExt, ext[l])
				iters = append(iters, Reduction)
			}
		}
	}
	b.SetBox(dimNames(len(dimExt)), dimExt, iters)
	b.Op.Access = make([]Access, len(ins))
	var body *Scalar
	for k, t := range ins {
		in := b.In(k)
		var idx []volume.Aff
		d := 0
		for _, l := range t {
			if l == -1 {
				n := in.Rank() - (len(t) - 1)
				for e := 0; e < n; e++ {
					pos := ellRank - n + e
					if v, ok := in.Shape[d+e].IsConst(); ok && v == 1 {
						idx = append(idx, volume.AffConst(0))
					} else {
						idx = append(idx, volume.AffDim(ellDim+pos))
					}
				}
				d += n
				continue
			}
			idx = append(idx, volume.AffDim(dimOf[l]))
			d++
		}
		b.Op.Access[k] = AffAccess(idx...)
		if body == nil {
			body = Read(k, elem)
		} else {
			body = Bin(SMul, body, Read(k, elem))
		}
	}
	b.Op.Out = AffAccess(outIdx...)
	b.Op.Body = body
	if slices.Contains(iters, Reduction) {
		b.Op.Reduce = ReduceSum
	}
	b.Result = TensorType{Elem: elem, Shape: outShape}
	return nil
}
