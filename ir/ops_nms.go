// This file declares nms, an algorithm op (ops_algo.go): the greedy suppression of
// NonMaxSuppression for every (batch, class). The candidates are visited in the order given
// by an operand (argsort of the scores); a candidate whose score passes the threshold is kept
// unless a box kept before it overlaps it by more than the IoU threshold, until the limit is
// reached. The result lists the kept boxes of every (batch, class) in order, then -1: that is
// O(N·log N + N·k) for N candidates and k kept, where the unrolled form in generic ops took
// N steps of N. The arithmetic is onnxruntime's, in float32.

package ir

import (
	"github.com/graphc/graphc/volume"
)

func init() {
	register(&OpDef{
		Name: "nms",
		Summary: "keep[b, c, k] = the k-th box kept by the greedy suppression of class c of batch b (candidates in the order " +
			"order[b, c, :], kept when score > score_threshold and IoU <= iou_threshold with every box kept before), " +
			"-1 after the last; boxes[b, i, :] are y1, x1, y2, x2 (either diagonal), or x, y, w, h with center_point_box (an algorithm)",
		Example:     "%k = nms(%boxes, %scores, %order) {iou_threshold = 0.5, limit = 3} : i64[1, 2, 3]",
		MinOperands: 3, MaxOperands: 3,
		Attrs: []AttrDef{
			{Name: "iou_threshold", Kind: AttrFloat, Default: dflt(FloatAttr(0)), Doc: "a box overlapping a kept box by more is suppressed"},
			{Name: "score_threshold", Kind: AttrFloat, Default: dflt(FloatAttr(0)), Doc: "candidates need a score above it (when has_score_threshold)"},
			{Name: "has_score_threshold", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1: apply score_threshold"},
			{Name: "limit", Kind: AttrInt, Default: dflt(IntAttr(-1)), Doc: "the most boxes kept per (batch, class); -1: the number of boxes"},
			{Name: "center_point_box", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1: boxes are centres and sizes"},
		},
		Build:     buildNMS,
		Algorithm: &Algorithm{Eval: evalNMS},
	})
}

func buildNMS(b *Builder) error {
	cs, sc, ord := b.In(0), b.In(1), b.In(2)
	if cs.Rank() != 3 || cs.Elem != F32 || sc.Rank() != 3 || sc.Elem != F32 {
		return b.Errorf("boxes %s and scores %s must be f32 [B, N, 4] and [B, C, N]", cs, sc)
	}
	if c, ok := cs.Shape[2].IsConst(); !ok || c != 4 {
		return b.Errorf("boxes %s must be [B, N, 4]", cs)
	}
	if !sc.Shape[0].Equal(cs.Shape[0]) || !sc.Shape[2].Equal(cs.Shape[1]) {
		return b.Errorf("scores %s must be [B, C, N] for boxes %s", sc, cs)
	}
	if ord.Elem != I64 || !ord.Equal(TensorType{Elem: I64, Shape: sc.Shape}) {
		return b.Errorf("order %s must be i64 of the scores' shape %s", ord, sc)
	}
	l := cs.Shape[1]
	if lim := b.Op.Attrs.Int("limit", -1); lim >= 0 {
		l = volume.AffConst(lim)
	}
	res := TensorType{Elem: I64, Shape: []volume.Aff{sc.Shape[0], sc.Shape[1], l}}
	// result [b, c, k]: every box of batch b, every score and rank of class c
	return setAlgorithmForm(b, res, [][]int{{0, -1, -1}, {0, 1, -1}, {0, 1, -1}})
}

// NMSCorners returns box q (y1, x1, y2, x2, or x, y, w, h when center) as ymin, xmin, ymax,
// xmax, in onnxruntime's float32 arithmetic.
func NMSCorners(q [4]float32, center bool) [4]float32 {
	if center {
		w, h := q[2]/2, q[3]/2
		return [4]float32{q[1] - h, q[0] - w, q[1] + h, q[0] + w}
	}
	return [4]float32{min(q[0], q[2]), min(q[1], q[3]), max(q[0], q[2]), max(q[1], q[3])}
}

// NMSSuppresses reports whether two boxes (ymin, xmin, ymax, xmax) overlap by more than the
// IoU threshold t, in onnxruntime's float32 arithmetic and order of tests.
func NMSSuppresses(p, q [4]float32, t float32) bool {
	ixlo, ixhi := max(p[1], q[1]), min(p[3], q[3])
	if ixhi <= ixlo {
		return false
	}
	iylo, iyhi := max(p[0], q[0]), min(p[2], q[2])
	if iyhi <= iylo {
		return false
	}
	inter := (ixhi - ixlo) * (iyhi - iylo)
	if inter <= 0 {
		return false
	}
	a1 := (p[3] - p[1]) * (p[2] - p[0])
	a2 := (q[3] - q[1]) * (q[2] - q[0])
	if a1 <= 0 || a2 <= 0 {
		return false
	}
	union := a1 + a2 - inter
	if union <= 0 {
		return false
	}
	return inter/union > t
}

func evalNMS(op *Op, ins []*Tensor, shape []int64) (*Tensor, error) {
	cs, sc, ord := ins[0], ins[1], ins[2]
	nb, nc, n := sc.Shape[0], sc.Shape[1], sc.Shape[2]
	l := n
	if lim := op.Attrs.Int("limit", -1); lim >= 0 {
		l = lim
	}
	if err := algoShape(op, shape, nb, nc, l); err != nil {
		return nil, err
	}
	iou := float32(op.Attrs.Float("iou_threshold", 0))
	st := float32(op.Attrs.Float("score_threshold", 0))
	hasST := op.Attrs.Int("has_score_threshold", 0) != 0
	res := NewTensor(I64, shape)
	center := op.Attrs.Int("center_point_box", 0) != 0
	box := func(b, i int64) [4]float32 {
		var q [4]float32
		for k := range q {
			q[k] = float32(cs.Float(int((b*n+i)*4 + int64(k))))
		}
		return NMSCorners(q, center)
	}
	var kept [][4]float32
	for b := range nb {
		for c := range nc {
			out := res.I[(b*nc+c)*l : (b*nc+c+1)*l]
			kept = kept[:0]
			for t := int64(0); t < n && int64(len(kept)) < l; t++ {
				i := ord.Int(int((b*nc+c)*n + t))
				if i < 0 || i >= n {
					return nil, errorOutOfRange(op, i, n)
				}
				if hasST && !(float32(sc.Float(int((b*nc+c)*n+i))) > st) {
					continue
				}
				q := box(b, i)
				sup := false
				for _, p := range kept {
					if NMSSuppresses(p, q, iou) {
						sup = true
						break
					}
				}
				if !sup {
					out[len(kept)] = i
					kept = append(kept, q)
				}
			}
			for k := len(kept); k < len(out); k++ {
				out[k] = -1
			}
		}
	}
	return res, nil
}
