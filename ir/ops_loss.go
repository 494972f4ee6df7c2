// This file declares the picks of the negative log-likelihood loss: nll_pick reads, for every
// sample position, the input element of the target class (a data-dependent read: its access is
// over-approximated by every class) scaled by the class weight, and nll_weight the weight alone
// (the denominator of the mean). ignore_index targets contribute 0.

package ir

import (
	"fmt"
	"strings"

	"github.com/graphc/graphc/volume"
)

func init() {
	ignore := []AttrDef{
		{Name: "ignore_index", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "the target value that contributes 0"},
		{Name: "has_ignore", Kind: AttrInt, Default: dflt(IntAttr(0)), Doc: "1 when ignore_index applies"},
	}
	register(&OpDef{
		Name:        "nll_pick",
		Summary:     "loss[n, d…] = -input[n, target[n, d…], d…] * weight[target[n, d…]] (weight 1 when absent; 0 for ignored targets)",
		Example:     "%l = nll_pick(%logp, %target, %w) : f32[4]",
		MinOperands: 2, MaxOperands: 3,
		Attrs: ignore,
		Build: buildNLLPick,
	}, &OpDef{
		Name:        "nll_weight",
		Summary:     "w[n, d…] = weight[target[n, d…]] (1 when absent; 0 for ignored targets), the mean's denominator",
		Example:     `%w = nll_weight(%target) {type = "f32"} : f32[4]`,
		MinOperands: 1, MaxOperands: 2,
		Attrs: append([]AttrDef{{Name: "type", Kind: AttrString, Default: dflt(StringAttr("f32")), Doc: "result element type without a weight operand"}}, ignore...),
		Build: buildNLLWeight,
	})
}

// approxClassMap returns { [dims] -> [outs…] : 0 <= c_ < extent }, the elements a read at the
// given index expressions, with "c_" standing for the data-dependent class, may touch.
func approxClassMap(params, dims, outs []string, extent volume.Aff) (volume.Map, error) {
	ps := append([]string(nil), params...)
	for _, p := range extent.ParamNames() {
		if !strings.Contains(","+strings.Join(ps, ",")+",", ","+p+",") {
			ps = append(ps, p)
		}
	}
	text := fmt.Sprintf("[%s] -> { [%s] -> [%s] : 0 <= c_ < %s }", strings.Join(ps, ", "), strings.Join(dims, ", "),
		strings.Join(outs, ", "), extent.String())
	m, err := volume.ParseMap(text)
	if err != nil {
		return volume.Map{}, fmt.Errorf("internal error building the over-approximated map %s: %w", text, err)
	}
	return m, nil
}

// nllTarget checks the target operand and sets the box domain over it; it returns the class
// read as an i64 (0 where ignored) and whether the target counts.
func nllTarget(b *Builder, k int) (class, valid *Scalar, err error) {
	tt := b.In(k)
	if tt.Elem.IsFloat() || tt.Elem == Bool {
		return nil, nil, b.Errorf("target must be an integer tensor, got %s", tt)
	}
	if tt.Rank() < 1 {
		return nil, nil, b.Errorf("target must have rank >= 1 (N, d…), got %s", tt)
	}
	b.SetBox(dimNames(tt.Rank()), tt.Shape, nil)
	t := Cast(Read(k, tt.Elem), I64)
	valid = ConstI(Bool, 1)
	if b.Op.Attrs.Int("has_ignore", 0) != 0 {
		valid = Bin(SNe, t, ConstI(I64, b.Op.Attrs.Int("ignore_index", 0)))
	}
	return Select(valid, t, ConstI(I64, 0)), valid, nil
}

func buildNLLPick(b *Builder) error {
	in := b.In(0)
	if !in.Elem.IsFloat() || in.Rank() < 2 {
		return b.Errorf("input must be a float tensor of rank >= 2 (N, C, d…), got %s", in)
	}
	tt := b.In(1)
	if tt.Rank() != in.Rank()-1 || !tt.Shape[0].Equal(in.Shape[0]) {
		return b.Errorf("target %s does not match input %s (N, d…)", tt, in)
	}
	for d := 1; d < tt.Rank(); d++ {
		if !tt.Shape[d].Equal(in.Shape[d+1]) {
			return b.Errorf("target %s does not match input %s (N, d…)", tt, in)
		}
	}
	class, valid, err := nllTarget(b, 1)
	if err != nil {
		return err
	}
	dims := b.Op.Dims
	outs := append([]string{dims[0], "c_"}, dims[1:]...)
	am, err := approxClassMap(b.Params, dims, outs, in.Shape[1])
	if err != nil {
		return b.Errorf("%v", err)
	}
	args := []*Scalar{Index(0), class}
	for d := 1; d < tt.Rank(); d++ {
		args = append(args, Index(d))
	}
	v := Un(SNeg, DynRead(0, in.Elem, args...))
	b.Op.Access = []Access{{Approx: true, ApproxMap: am}, AffAccess(identity(0, tt.Rank())...)}
	if b.NumIn() == 3 {
		w, err := nllWeightRead(b, 2, in.Elem, in.Shape[1], class)
		if err != nil {
			return err
		}
		v = Bin(SMul, v, w)
	}
	b.Op.Out = AffAccess(identity(0, tt.Rank())...)
	b.Op.Body = Select(valid, v, Const(in.Elem, 0))
	b.Result = TensorType{Elem: in.Elem, Shape: tt.Shape}
	return nil
}

// nllWeightRead appends the access of weight operand k and returns weight[class].
func nllWeightRead(b *Builder, k int, elem DType, classes volume.Aff, class *Scalar) (*Scalar, error) {
	wt := b.In(k)
	if wt.Elem != elem || wt.Rank() != 1 || !wt.Shape[0].Equal(classes) {
		return nil, b.Errorf("weight must be %s[%s], got %s", elem, classes.String(), wt)
	}
	wm, err := approxClassMap(b.Params, b.Op.Dims, []string{"c_"}, classes)
	if err != nil {
		return nil, b.Errorf("%v", err)
	}
	b.Op.Access = append(b.Op.Access, Access{Approx: true, ApproxMap: wm})
	return DynRead(k, elem, class), nil
}

func buildNLLWeight(b *Builder) error {
	class, valid, err := nllTarget(b, 0)
	if err != nil {
		return err
	}
	tt := b.In(0)
	b.Op.Access = []Access{AffAccess(identity(0, tt.Rank())...)}
	var w *Scalar
	var elem DType
	if b.NumIn() == 2 {
		elem = b.In(1).Elem
		w, err = nllWeightRead(b, 1, elem, b.In(1).Shape[0], class)
		if err != nil {
			return err
		}
	} else {
		elem, err = ParseDType(b.Op.Attrs.Str("type", "f32"))
		if err != nil {
			return b.Errorf("type: %v", err)
		}
		w = Const(elem, 1)
	}
	if !elem.IsFloat() {
		return b.Errorf("weights must be floats, got %s", elem)
	}
	b.Op.Out = AffAccess(identity(0, tt.Rank())...)
	b.Op.Body = Select(valid, w, Const(elem, 0))
	b.Result = TensorType{Elem: elem, Shape: tt.Shape}
	return nil
}
