// This file reads the signature a module exports (ENTRY_signature, lower/signature.go): the
// ABI of its entry as JSON, and evaluates its shapes for given symbolic dims.

package modelrt

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/graphc/graphc/ir"
)

// signatureVersion is the "abi" field this package reads (lower.SignatureVersion).
const signatureVersion = 1

// Signature describes an entry's ABI: its inputs and outputs in argument order, the symbolic
// dims that are arguments after the outputs, and the weights file it takes.
type Signature struct {
	ABI     int    `json:"abi"`
	Entry   string `json:"entry"`
	Triple  string `json:"triple"`
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
type Extent struct {
	C int64            `json:"c"`
	P map[string]int64 `json:"p,omitempty"`
	F []FloorTerm      `json:"f,omitempty"`
}

// FloorTerm is K·floor(N / D).
type FloorTerm struct {
	K int64  `json:"k"`
	N Extent `json:"n"`
	D int64  `json:"d"`
}

// wire is the JSON form (dtypes as names, the fingerprint as hex).
type wire struct {
	ABI     int      `json:"abi"`
	Entry   string   `json:"entry"`
	Triple  string   `json:"triple"`
	Params  []string `json:"params"`
	Inputs  []wireArg
	Outputs []wireArg
	Weights *struct {
		Bytes       int64  `json:"bytes"`
		Fingerprint string `json:"fingerprint"`
	} `json:"weights"`
	Requires string       `json:"requires"`
	Profile  bool         `json:"profile"`
	Bounded  []BoundedDim `json:"bounded"`
}

type wireArg struct {
	Name  string   `json:"name"`
	DType string   `json:"dtype"`
	Shape []Extent `json:"shape"`
}

// ParseSignature parses the JSON an ENTRY_signature function returns.
func ParseSignature(text []byte) (*Signature, error) {
	var w wire
	if err := json.Unmarshal(text, &w); err != nil {
		return nil, fmt.Errorf("modelrt: reading the signature: %w", err)
	}
	if w.ABI != signatureVersion {
		return nil, fmt.Errorf("modelrt: signature of ABI version %d, this package reads version %d", w.ABI, signatureVersion)
	}
	s := &Signature{ABI: w.ABI, Entry: w.Entry, Triple: w.Triple, Params: w.Params, Requires: w.Requires, Profile: w.Profile, Bounded: w.Bounded}
	conv := func(as []wireArg) ([]Arg, error) {
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
	var err error
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

// Eval returns the extent for the given dims; ok is false when a dim it uses is not bound.
func (e Extent) Eval(dims map[string]int64) (int64, bool) {
	v := e.C
	for n, c := range e.P {
		d, ok := dims[n]
		if !ok {
			return 0, false
		}
		v += c * d
	}
	for _, f := range e.F {
		num, ok := f.N.Eval(dims)
		if !ok || f.D <= 0 {
			return 0, false
		}
		q := num / f.D
		if num%f.D != 0 && num < 0 {
			q-- // floor, not truncation
		}
		v += f.K * q
	}
	return v, true
}

// String prints the extent as graphc prints shapes: 512, N, 2*N + 1, floor((N + 1)/2).
func (e Extent) String() string {
	var terms []string
	names := make([]string, 0, len(e.P))
	for n := range e.P {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		switch c := e.P[n]; c {
		case 0:
		case 1:
			terms = append(terms, n)
		default:
			terms = append(terms, fmt.Sprintf("%d*%s", c, n))
		}
	}
	for _, f := range e.F {
		t := fmt.Sprintf("floor((%s)/%d)", f.N, f.D)
		if f.K != 1 {
			t = fmt.Sprintf("%d*%s", f.K, t)
		}
		terms = append(terms, t)
	}
	if e.C != 0 || len(terms) == 0 {
		terms = append(terms, fmt.Sprint(e.C))
	}
	return strings.Join(terms, " + ")
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
