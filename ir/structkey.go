// This file holds StructKey, which encodes the structure of ops (quasi-affine maps, bodies,
// tensor types) as compact byte strings, the keys of caches whose entries depend on that
// structure alone: lowering shares one kernel among ops with equal keys, DIE reuses the
// analysis of an op with the same key. Encodings are exact: two values encode alike only if
// they are equal (up to what the encoding documents, e.g. zero coefficients), and every field
// is prefixed or terminated so that concatenations cannot collide.

package ir

import (
	"encoding/binary"
	"math"

	"github.com/graphc/graphc/volume"
)

// StructKey is a key under construction. The zero value is an empty key; B may be reused after
// Reset.
type StructKey struct {
	B   []byte
	ids map[*Scalar]int
}

// Reset empties the key, keeping its storage.
func (k *StructKey) Reset() { k.B = k.B[:0] }

// Int appends x.
func (k *StructKey) Int(x int64) { k.B = binary.AppendVarint(k.B, x) }

// Bool appends b.
func (k *StructKey) Bool(b bool) {
	if b {
		k.B = append(k.B, 1)
	} else {
		k.B = append(k.B, 0)
	}
}

// Float appends the bits of f (so -0 and NaN payloads are told apart).
func (k *StructKey) Float(f float64) { k.B = binary.AppendUvarint(k.B, math.Float64bits(f)) }

// Str appends s, length first.
func (k *StructKey) Str(s string) {
	k.Int(int64(len(s)))
	k.B = append(k.B, s...)
}

// Strs appends a list of strings.
func (k *StructKey) Strs(ss []string) {
	k.Int(int64(len(ss)))
	for _, s := range ss {
		k.Str(s)
	}
}

// Aff appends a quasi-affine expression by its non-zero terms, in order (trailing zero dims
// and zero-coefficient parameters do not change the value, nor the code emitted for it).
func (k *StructKey) Aff(a volume.Aff) {
	k.Int(a.Const)
	for i, c := range a.Dims {
		if c != 0 {
			k.Int(int64(i) + 1)
			k.Int(c)
		}
	}
	k.Int(0)
	for _, p := range a.Params {
		if p.Coef != 0 {
			k.Str(p.Name)
			k.Int(p.Coef)
		}
	}
	k.Str("")
	k.Int(int64(len(a.Floors)))
	for _, f := range a.Floors {
		k.Aff(f.Num)
		k.Int(f.Den)
		k.Int(f.Coef)
	}
}

// Affs appends a list of expressions.
func (k *StructKey) Affs(as []volume.Aff) {
	k.Int(int64(len(as)))
	for _, a := range as {
		k.Aff(a)
	}
}

// TensorType appends an element type and shape.
func (k *StructKey) TensorType(t TensorType) {
	k.Int(int64(t.Elem))
	k.Affs(t.Shape)
}

// Access appends an access: its pieces (guards and indices) and, for a data-dependent
// access, its over-approximated map in isl notation.
func (k *StructKey) Access(a Access) {
	k.Bool(a.Approx)
	if a.Approx {
		k.Str(a.ApproxMap.String())
	}
	k.Int(int64(len(a.Pieces)))
	for _, p := range a.Pieces {
		k.Int(int64(len(p.Guard)))
		for _, c := range p.Guard {
			k.Bool(c.Eq)
			k.Aff(c.Aff)
		}
		k.Affs(p.Index)
	}
}

// Body appends a body as a DAG: a node met before is a back reference to its number, so two
// bodies encode alike only if they share the same subexpressions.
func (k *StructKey) Body(s *Scalar) {
	if k.ids == nil {
		k.ids = map[*Scalar]int{}
	}
	clear(k.ids)
	k.body(s)
}

func (k *StructKey) body(s *Scalar) {
	if id, ok := k.ids[s]; ok {
		k.Int(-int64(id) - 1)
		return
	}
	k.ids[s] = len(k.ids)
	k.Int(int64(s.Op))
	k.Int(int64(s.Type))
	k.Int(int64(s.Arg))
	k.Str(s.Name)
	k.Float(s.F)
	k.Int(s.I)
	k.Int(int64(len(s.Args)))
	for _, a := range s.Args {
		k.body(a)
	}
}
