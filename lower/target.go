// This file loads target specifications: JSON files with inheritance, as TinyGo does. llir has
// no target machine to ask, so each file carries its triple and data layout, and the facts
// about the target that lowering needs (explicit vector width, which operations have no inline
// lowering and must be emitted by graphc).

package lower

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

//go:embed targets/*.json
var targetFS embed.FS

// Target is a code generation target.
type Target struct {
	Name       string `json:"-"`
	Inherits   string `json:"inherits"`
	Triple     string `json:"llvm-target"`
	DataLayout string `json:"data-layout"`
	CPU        string `json:"cpu"`
	Features   string `json:"features"`
	// VectorBytes is the width of the explicit vectors of innermost loops, used when the
	// features enable VectorFeature ("" = never: LLVM's own vectorizer handles the target).
	VectorBytes   int    `json:"vector-bytes"`
	VectorFeature string `json:"vector-feature"`
	// VectorFromCPU says that explicit vectors are as wide as the CPU and features allow
	// (x86VectorBytes: 64 bytes with AVX-512, 32 with AVX, else 16), whatever VectorBytes says.
	VectorFromCPU bool `json:"vector-bytes-from-cpu"`
	// SoftFloatDiv, SoftSqrt and SoftIntDiv say that f64 division, square root and integer
	// division by a variable have no inline lowering (they would become libcalls): graphc
	// emits its own functions instead, and the module references no external symbol.
	SoftFloatDiv bool `json:"soft-float-div"`
	SoftSqrt     bool `json:"soft-sqrt"`
	SoftIntDiv   bool `json:"soft-int-div"`
	// NoBuiltins marks every function "no-builtins" so that LLVM does not turn loops into
	// memset/memcpy calls (a freestanding target has no C library).
	NoBuiltins bool `json:"no-builtins"`
	// FloatSelectBarrier launders the arms of scalar float selects (see funcBuilder.launder):
	// LLVM 19's Hexagon backend turns select(a < b, a, b) into sfmin, which returns the other
	// operand when one is NaN where the select returns b.
	FloatSelectBarrier bool `json:"float-select-barrier"`
	// SlowVectorDiv says that a float vector division becomes one scalar division per lane
	// (HVX): float32 math divides through a Newton reciprocal instead.
	SlowVectorDiv bool `json:"slow-vector-div"`
	// Freestanding says that modules must reference no external symbol.
	Freestanding bool `json:"freestanding"`
	// RegisterTiles enables the register-tile kernels of contractions (contract.go), with
	// vectors as wide as the CPU and features allow (x86VectorBytes).
	RegisterTiles bool `json:"register-tiles"`
	// LLCFlags are extra flags llc and clang need for this target.
	LLCFlags []string `json:"llc-flags"`
}

// LoadTarget returns the named target with its inherited fields resolved.
func LoadTarget(name string) (*Target, error) {
	return loadTarget(name, 0)
}

func loadTarget(name string, depth int) (*Target, error) {
	if depth > 8 {
		return nil, fmt.Errorf("target %q: inheritance chain deeper than 8", name)
	}
	data, err := targetFS.ReadFile("targets/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("unknown target %q (targets: %s)", name, strings.Join(Targets(), ", "))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("target %q: %w", name, err)
	}
	t := &Target{}
	if inh, ok := raw["inherits"]; ok {
		var parent string
		if err := json.Unmarshal(inh, &parent); err != nil {
			return nil, fmt.Errorf("target %q: inherits: %w", name, err)
		}
		p, err := loadTarget(parent, depth+1)
		if err != nil {
			return nil, err
		}
		*t = *p
	}
	// fields present in the child override the parent's (slices append)
	parentFlags := t.LLCFlags
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("target %q: %w", name, err)
	}
	if _, ok := raw["llc-flags"]; ok && len(parentFlags) > 0 {
		t.LLCFlags = append(append([]string(nil), parentFlags...), t.LLCFlags...)
	}
	t.Name = name
	return t, nil
}

// Targets lists the available target names.
func Targets() []string {
	ents, _ := targetFS.ReadDir("targets")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(out)
	return out
}

// featureOn reports whether a comma-separated llc feature list enables feature f: "+f" is
// present and neither "-f" nor "-" of a feature f extends (e.g. "-hvx" disables
// "hvx-length128b") is.
func featureOn(features, f string) bool {
	on := false
	for _, x := range strings.Split(features, ",") {
		x = strings.TrimSpace(x)
		switch {
		case x == "+"+f:
			on = true
		case strings.HasPrefix(x, "-") && strings.HasPrefix(f, x[1:]):
			return false
		}
	}
	return on
}

// PointerBits returns the width of a pointer in the target's data layout (64 when the layout
// does not say).
func (t *Target) PointerBits() int {
	for _, spec := range strings.Split(t.DataLayout, "-") {
		rest, ok := strings.CutPrefix(spec, "p:")
		if !ok {
			rest, ok = strings.CutPrefix(spec, "p0:")
		}
		if !ok {
			continue
		}
		size, _, _ := strings.Cut(rest, ":")
		if n, err := strconv.Atoi(size); err == nil && n > 0 && n <= 64 {
			return n
		}
	}
	return 64
}

// MaxObjectBytes is the size of the largest buffer the generated code can address: byte offsets
// are signed pointer-width integers.
func (t *Target) MaxObjectBytes() int64 {
	return int64(uint64(1)<<(t.PointerBits()-1) - 1)
}
