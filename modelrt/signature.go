// This file reads the signature a module exports (ENTRY_signature, lower/signature.go): the
// ABI of its entry as JSON (package abi's document), and evaluates its shapes for given
// symbolic dims.

package modelrt

import (
	"fmt"
	"sort"
	"strings"

	"github.com/graphc/graphc/abi"
	"github.com/graphc/graphc/ir"
)

// Signature describes an entry's ABI: its inputs and outputs in argument order, the symbolic
// dims that are arguments after the outputs, and the weights file it takes. It is package abi's
// document with element types and the fingerprint decoded.
type Signature struct {
	ABI     int
	Entry   string
	Triple  string
	Params  []string
	Inputs  []Arg
	Outputs []Arg
	// Weights is set when the module was compiled with --weights: the entry then takes the
	// file's contents after the workspace.
	Weights *WeightsInfo
	// Requires lists the requirements on the symbolic dims that the entry checks (status 1).
	Requires string
	// Profile: a profiling build, whose calls are serialised.
	Profile bool
	// Bounded lists the dims the entry computes from the data (bounded.go).
	Bounded []BoundedDim
}

// Arg is one input or output of the entry.
type Arg struct {
	Name  string
	DType ir.DType
	Shape []Extent
}

// WeightsInfo is the size and layout fingerprint of the weights file the entry takes.
type WeightsInfo struct {
	Bytes       int64
	Fingerprint uint64
}

// Extent is one extent of a shape: C + Σ P[name]·name + Σ F[i].K·floor(F[i].N / F[i].D) over the
// symbolic dims.
type Extent = abi.Extent

// FloorTerm is K·floor(N / D).
type FloorTerm = abi.FloorTerm

// BoundedDim is a dim the entry computes: Param's value, in [0, Bound], is the scalar int64
// output #Output.
type BoundedDim = abi.Bounded

// ParseSignature parses the JSON an ENTRY_signature function returns.
func ParseSignature(text []byte) (*Signature, error) {
	w, err := abi.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("modelrt: %w", err)
	}
	s := &Signature{ABI: w.ABI, Entry: w.Entry, Triple: w.Triple, Params: w.Params, Requires: w.Requires, Profile: w.Profile, Bounded: w.Bounded}
	conv := func(as []abi.Arg) ([]Arg, error) {
		var out []Arg
		for _, a := range as {
			dt, err := ir.ParseDType(a.DType)
			if err != nil {
				return nil, fmt.Errorf("modelrt: signature: %s: %w", a.Name, err)
			}
			out = append(out, Arg{Name: a.Name, DType: dt, Shape: a.Shape})
		}
		return out, nil
	}
	if s.Inputs, err = conv(w.Inputs); err != nil {
		return nil, err
	}
	if s.Outputs, err = conv(w.Outputs); err != nil {
		return nil, err
	}
	if w.Weights != nil {
		s.Weights = &WeightsInfo{Bytes: w.Weights.Bytes}
		if _, err := fmt.Sscanf(w.Weights.Fingerprint, "0x%x", &s.Weights.Fingerprint); err != nil {
			return nil, fmt.Errorf("modelrt: signature: weights fingerprint %q: %w", w.Weights.Fingerprint, err)
		}
	}
	return s, nil
}

// ShapeString prints a shape of extents: [N, 512].
func ShapeString(s []Extent) string {
	parts := make([]string, len(s))
	for i, e := range s {
		parts[i] = e.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ShapeFor evaluates the shape of a for the given dims.
func (a Arg) ShapeFor(dims map[string]int64) ([]int64, error) {
	out := make([]int64, len(a.Shape))
	for i, e := range a.Shape {
		v, ok := e.Eval(dims)
		if !ok {
			return nil, fmt.Errorf("extent %s of %s uses an unbound symbolic dim", e, a.Name)
		}
		if v < 0 {
			return nil, fmt.Errorf("extent %s of %s is %d for %s", e, a.Name, v, dimsString(dims))
		}
		out[i] = v
	}
	return out, nil
}

// InferDims binds the symbolic dims from the shapes of the inputs: an extent that is one
// unbound dim times a coefficient plus known terms gives that dim; the rest are then checked
// by Run. A dim no input extent determines is an error naming it.
func (s *Signature) InferDims(shapes [][]int64) (map[string]int64, error) {
	dims := map[string]int64{}
	for progress := true; progress; {
		progress = false
		for i, in := range s.Inputs {
			if i >= len(shapes) || len(shapes[i]) != len(in.Shape) {
				continue
			}
			for d, e := range in.Shape {
				if len(e.F) > 0 {
					continue
				}
				rest, unknown, coef := e.C, "", int64(0)
				for n, c := range e.P {
					if v, ok := dims[n]; ok {
						rest += c * v
					} else if unknown == "" && c != 0 {
						unknown, coef = n, c
					} else if c != 0 {
						unknown = "\x00" // two unknown dims: not this extent
					}
				}
				if unknown == "" || unknown == "\x00" {
					continue
				}
				num := shapes[i][d] - rest
				if num%coef != 0 {
					return nil, fmt.Errorf("input %q dim %d: extent %d is not %s for any integer %s", in.Name, d, shapes[i][d], e, unknown)
				}
				dims[unknown] = num / coef
				progress = true
			}
		}
	}
	for _, p := range s.Params {
		if _, ok := dims[p]; !ok {
			return nil, fmt.Errorf("symbolic dim %s cannot be inferred from the input shapes", p)
		}
	}
	return dims, nil
}

func dimsString(dims map[string]int64) string {
	names := make([]string, 0, len(dims))
	for n := range dims {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s = %d", n, dims[n]))
	}
	return strings.Join(parts, ", ")
}
