package opkey

import (
	"testing"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func keyOf(f func(k *Key)) string {
	var k Key
	f(&k)
	return string(k.B)
}

// TestDistinct checks that values that differ encode differently and that equal values (up to
// zero coefficients) encode alike.
func TestDistinct(t *testing.T) {
	i, j := volume.AffDim(0), volume.AffDim(1)
	n := volume.AffParam("N")
	affs := []volume.Aff{i, j, i.Add(j), i.AddConst(1), n, n.Add(i), volume.AffConst(0), volume.AffConst(1),
		i.FloorDiv(2), j.FloorDiv(2), i.Mul(2).FloorDiv(4), volume.AffParam("M")}
	seen := map[string]int{}
	for x, a := range affs {
		k := keyOf(func(k *Key) { k.Aff(a) })
		if y, dup := seen[k]; dup {
			t.Errorf("%v and %v encode alike", affs[y], a)
		}
		seen[k] = x
	}
	trailing := volume.Aff{Dims: []int64{1, 0, 0}}
	if keyOf(func(k *Key) { k.Aff(trailing) }) != keyOf(func(k *Key) { k.Aff(i) }) {
		t.Error("trailing zero dims change the key")
	}
	// strings and lists are delimited
	if keyOf(func(k *Key) { k.Str("ab"); k.Str("c") }) == keyOf(func(k *Key) { k.Str("a"); k.Str("bc") }) {
		t.Error("string boundaries are lost")
	}
	// bodies: sharing is part of the key, constants by their bits
	x := ir.Read(0, ir.F32)
	shared := &ir.Scalar{Op: ir.SAdd, Type: ir.F32, Args: []*ir.Scalar{x, x}}
	copied := &ir.Scalar{Op: ir.SAdd, Type: ir.F32, Args: []*ir.Scalar{ir.Read(0, ir.F32), ir.Read(0, ir.F32)}}
	if keyOf(func(k *Key) { k.Body(shared) }) == keyOf(func(k *Key) { k.Body(copied) }) {
		t.Error("a shared subexpression encodes like two copies")
	}
	negZero := &ir.Scalar{Op: ir.SConst, Type: ir.F32, F: negativeZero()}
	if keyOf(func(k *Key) { k.Body(ir.ConstF(ir.F32, 0)) }) == keyOf(func(k *Key) { k.Body(negZero) }) {
		t.Error("+0 and -0 encode alike")
	}
}

func negativeZero() float64 {
	z := 0.0
	return -z
}
