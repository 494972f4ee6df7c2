package ir

import (
	"testing"

	"github.com/graphc/graphc/volume"
)

func keyOf(f func(k *StructKey)) string {
	var k StructKey
	f(&k)
	return string(k.B)
}

// TestDistinct checks that values that differ encode differently and that equal values (up to
// zero coefficients) encode alike.
func TestStructKeyDistinct(t *testing.T) {
	i, j := volume.AffDim(0), volume.AffDim(1)
	n := volume.AffParam("N")
	affs := []volume.Aff{i, j, i.Add(j), i.AddConst(1), n, n.Add(i), volume.AffConst(0), volume.AffConst(1),
		i.FloorDiv(2), j.FloorDiv(2), i.Mul(2).FloorDiv(4), volume.AffParam("M")}
	seen := map[string]int{}
	for x, a := range affs {
		k := keyOf(func(k *StructKey) { k.Aff(a) })
		if y, dup := seen[k]; dup {
			t.Errorf("%v and %v encode alike", affs[y], a)
		}
		seen[k] = x
	}
	trailing := volume.Aff{Dims: []int64{1, 0, 0}}
	if keyOf(func(k *StructKey) { k.Aff(trailing) }) != keyOf(func(k *StructKey) { k.Aff(i) }) {
		t.Error("trailing zero dims change the key")
	}
	// strings and lists are delimited
	if keyOf(func(k *StructKey) { k.Str("ab"); k.Str("c") }) == keyOf(func(k *StructKey) { k.Str("a"); k.Str("bc") }) {
		t.Error("string boundaries are lost")
	}
	// bodies: sharing is part of the key, constants by their bits
	x := Read(0, F32)
	shared := &Scalar{Op: SAdd, Type: F32, Args: []*Scalar{x, x}}
	copied := &Scalar{Op: SAdd, Type: F32, Args: []*Scalar{Read(0, F32), Read(0, F32)}}
	if keyOf(func(k *StructKey) { k.Body(shared) }) == keyOf(func(k *StructKey) { k.Body(copied) }) {
		t.Error("a shared subexpression encodes like two copies")
	}
	negZero := &Scalar{Op: SConst, Type: F32, F: negativeZero()}
	if keyOf(func(k *StructKey) { k.Body(ConstF(F32, 0)) }) == keyOf(func(k *StructKey) { k.Body(negZero) }) {
		t.Error("+0 and -0 encode alike")
	}
}

func negativeZero() float64 {
	z := 0.0
	return -z
}
