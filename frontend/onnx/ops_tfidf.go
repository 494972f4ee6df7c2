// This file imports TfIdfVectorizer over integer sequences: every pooled n-gram and skip
// distance is a generic reduction counting the positions whose elements equal the n-gram's
// (the n reads are affine accesses of the input at i + j·(skip + 1)); the counts are placed at
// the n-grams' output indexes and weighted by the mode.

package onnx

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func init() {
	registerOp("TfIdfVectorizer", 9, importTfIdf)
	noteOp("TfIdfVectorizer", "integer inputs (pool_int64s); TF, IDF and TFIDF; one counting reduction per n-gram and skip")
}

func importTfIdf(c *nodeCtx) error {
	e := c.emitter()
	x0 := e.In(0)
	if e.err != nil {
		return e.err
	}
	if x0.Type.Elem.IsFloat() || x0.Type.Elem == ir.Bool || x0.Type.Rank() < 1 || x0.Type.Rank() > 2 {
		return fmt.Errorf("%w: input must be a 1-D or 2-D integer tensor (strings are not supported), got %s", ErrUnsupported, x0.Type)
	}
	x := x0
	if x.Type.Rank() == 1 {
		x = e.reshape(x, volume.AffConst(1), x.Type.Shape[0])
	}
	n, ok := x.Type.Dim(1)
	if !ok {
		return fmt.Errorf("%w: a symbolic sequence length in %s", ErrUnsupported, x0.Type)
	}
	pool := c.AttrInts("pool_int64s", nil)
	counts := c.AttrInts("ngram_counts", nil)
	indexes := c.AttrInts("ngram_indexes", nil)
	weights := c.AttrFloats("weights", nil)
	minN, maxN, maxSkip := c.AttrInt("min_gram_length", 1), c.AttrInt("max_gram_length", 1), c.AttrInt("max_skip_count", 0)
	mode := c.AttrString("mode", "TF")
	if mode != "TF" && mode != "IDF" && mode != "TFIDF" {
		return fmt.Errorf("%w: mode %q (want TF, IDF or TFIDF)", ErrInvalid, mode)
	}
	// the n-grams of the pool: length k+1 from counts[k] on
	type gram struct {
		vals []int64
		out  int64
	}
	var grams []gram
	g := 0
	for k := range counts {
		end := int64(len(pool))
		if k+1 < len(counts) {
			end = counts[k+1]
		}
		ln := int64(k + 1)
		if counts[k] < 0 || end < counts[k] || end > int64(len(pool)) || (end-counts[k])%ln != 0 {
			return fmt.Errorf("%w: ngram_counts %v do not split a pool of %d", ErrInvalid, counts, len(pool))
		}
		for p := counts[k]; p < end; p += ln {
			if g >= len(indexes) {
				return fmt.Errorf("%w: more pooled n-grams than ngram_indexes (%d)", ErrInvalid, len(indexes))
			}
			grams = append(grams, gram{vals: pool[p : p+ln], out: indexes[g]})
			g++
		}
	}
	width := int64(0)
	for _, ix := range indexes {
		width = max(width, ix+1)
	}
	batch := x.Type.Shape[0]
	bs := batch.String()
	params := ""
	if ps := batch.ParamNames(); len(ps) > 0 {
		params = "[" + strings.Join(ps, ", ") + "] -> "
	}
	// per output index: the summed counts of its n-grams
	cols := make([]*ir.Value, width)
	rt := ir.TensorType{Elem: ir.F32, Shape: []volume.Aff{batch}}
	for _, gr := range grams {
		ln := int64(len(gr.vals))
		if ln < minN || ln > maxN {
			continue
		}
		skips := maxSkip
		if ln == 1 {
			skips = 0 // a unigram is counted once per position
		}
		for s := int64(0); s <= skips; s++ {
			span := (ln-1)*(s+1) + 1
			if span > n {
				continue
			}
			var access, conds []string
			ops := make([]*ir.Value, ln)
			for j := int64(0); j < ln; j++ {
				access = append(access, fmt.Sprintf("{ [b, i] -> [b, i + %d] }", j*(s+1)))
				conds = append(conds, fmt.Sprintf("eq(in%d, %d:%s)", j, gr.vals[j], x.Type.Elem))
				ops[j] = x
			}
			cond := conds[0]
			for _, cd := range conds[1:] {
				cond = "and(" + cond + ", " + cd + ")"
			}
			cnt := e.Op("generic", "", ir.Attrs{
				"type":      ir.StringAttr(rt.String()),
				"domain":    ir.StringAttr(fmt.Sprintf("%s{ [b, i] : 0 <= b < %s and 0 <= i <= %d }", params, bs, n-span)),
				"access":    ir.StringsAttr(access...),
				"out":       ir.StringAttr("{ [b, i] -> [b] }"),
				"body":      ir.StringAttr("select(" + cond + ", 1:f32, 0:f32)"),
				"iterators": ir.StringsAttr("parallel", "reduction"),
				"reduce":    ir.StringAttr("sum"),
			}, ops...)
			if cols[gr.out] == nil {
				cols[gr.out] = cnt
			} else {
				cols[gr.out] = e.Op("add", "", nil, cols[gr.out], cnt)
			}
		}
	}
	if e.err != nil {
		return e.err
	}
	zero := e.Op("fill", "", ir.Attrs{"type": ir.StringAttr(rt.String()), "value": ir.FloatAttr(0)})
	for k := range cols {
		v := cols[k]
		if v == nil {
			v = zero
		}
		w := 1.0
		if int64(k) < int64(len(weights)) {
			w = float64(weights[k])
		}
		switch mode {
		case "IDF":
			v = e.Op("mul", "", nil, e.Op("min", "", nil, v, e.Scalar(ir.F32, 1)), e.Scalar(ir.F32, w))
		case "TFIDF":
			v = e.Op("mul", "", nil, v, e.Scalar(ir.F32, w))
		}
		cols[k] = e.reshape(v, batch, volume.AffConst(1))
	}
	y := e.Op("concat", "", ir.Attrs{"axis": ir.IntAttr(1)}, cols...)
	if x0.Type.Rank() == 1 {
		y = e.reshape(y, volume.AffConst(width))
	}
	e.Out(0, e.Op("identity", c.Output(0), nil, y))
	return e.Done()
}
