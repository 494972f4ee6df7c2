// This file loads target specifications: JSON files with inheritance, as TinyGo does. llir has
// no target machine to ask, so each file carries its triple and data layout, and the facts
// about the target that lowering needs (explicit vector width, which operations have no inline
// lowering and must be emitted by graphc). A file whose name is its "cpu" is a CPU spec: it
// holds that CPU's default features and vector width, and --mcpu selects it (ForCPU); --mattr
// then edits the features as llc's -mattr does (MergeFeatures).

package lower

import (
	"embed"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

//go:embed targets/*.json
var targetFS embed.FS

// Target is a code generation target.
type Target struct {
	Name        string `json:"-"`
	Inherits    string `json:"inherits"`
	Description string `json:"description"`
	// Abstract marks a file that only holds shared fields (not a target users name); it is
	// not inherited.
	Abstract   bool   `json:"abstract"`
	Triple     string `json:"llvm-target"`
	DataLayout string `json:"data-layout"`
	CPU        string `json:"cpu"`
	// LLVMCPU is the CPU name given to LLVM when LLVM 19 does not know CPU (hexagonv75 runs
	// hexagonv73 code).
	LLVMCPU string `json:"llvm-cpu"`
	// Features are the CPU's default features, emitted as "target-features" (llc's -mattr):
	// on Hexagon HVX is a feature, not implied by the CPU.
	Features string `json:"features"`
	// ImpliedFeatures are features LLVM derives from the CPU name itself (x86's AVX2, VNNI…):
	// graphc's own decisions read them, they are not emitted.
	ImpliedFeatures string `json:"implied-features"`
	// VectorBytes is the width of the CPU's vector registers: the explicit vectors of
	// innermost loops when the features enable VectorFeature ("" = never: LLVM's own
	// vectorizer handles the target), and the register tiles of contractions.
	VectorBytes   int    `json:"vector-bytes"`
	VectorFeature string `json:"vector-feature"`
	// VectorIntOnly says that the vector unit has no floating point (HVX before v68): float
	// loops stay scalar, integer loops use vectors.
	VectorIntOnly bool `json:"vector-int-only"`
	// VectorFromCPU says that explicit vectors are as wide as the CPU and features allow
	// (VectorBytesEdits: 64 bytes with AVX-512, 32 with AVX, else 16), whatever VectorBytes
	// says.
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
	// NaNTestByBits says that float32 math tests vectors for NaN on their bit patterns (HVX
	// cannot select on an unordered vector compare); elsewhere one unordered compare does it.
	NaNTestByBits bool `json:"nan-test-by-bits"`
	// SlowVectorDiv says that a float vector division becomes one scalar division per lane
	// (HVX): float32 math divides through a Newton reciprocal instead.
	SlowVectorDiv bool `json:"slow-vector-div"`
	// FusedMathFeature is the feature that gives a correctly rounded fused multiply-add on
	// float scalars and on the float vectors graphc emits ("" = none): float32 math
	// polynomials (math_vec.go) then call llvm.fma, which rounds once and so gives the same
	// bits on every target that has it. x86-64 needs FMA3 ("fma"); every AArch64 CPU has
	// fmadd and fmla ("neon"); Hexagon's scalar sffma fuses but HVX has no vector form (LLVM
	// splits llvm.fma on HVX vectors into one sffma per lane), so Hexagon keeps mul and add.
	FusedMathFeature string `json:"fused-math-feature"`
	// HardwareF16 says that the CPU converts binary16 to and from float32 at every vector
	// width (AArch64): f16 loads, stores and roundings use the instructions (f16_hw.go).
	HardwareF16 bool `json:"hardware-f16-conversions"`
	// Freestanding says that modules must reference no external symbol.
	Freestanding bool `json:"freestanding"`
	// RegisterTiles enables the register-tile kernels of contractions (contract.go), with
	// vectors as wide as the CPU and features allow (VectorBytesEdits).
	RegisterTiles bool `json:"register-tiles"`
	// RegisterTileShapes are the float register tiles of the architecture, the first whose
	// VectorBytesAtLeast the tile width reaches: how many accumulators fit its vector
	// registers (16 on SSE/AVX2, 32 on AVX-512 and NEON) beside the operands.
	RegisterTileShapes []TileShape `json:"register-tile-shapes"`
	// LLCFlags are extra flags llc and clang need for this target.
	LLCFlags []string `json:"llc-flags"`
	// LinkFlags are the flags clang needs to link a shared library for the target ("-fuse-ld=lld"
	// where the system linker only knows the host).
	LinkFlags []string `json:"link-flags"`
	// ClangCPUFlag is the clang flag that names the CPU ("-march" on x86-64; "-mcpu" when
	// empty).
	ClangCPUFlag string `json:"clang-cpu-flag"`
	// MinVectorBytes is the narrowest vector width of the architecture (x86-64's SSE2), and
	// VectorBytesEdits how feature edits change the width of a VectorFromCPU target (--mattr,
	// and the host's features for --mcpu=native), in the order the features are given.
	MinVectorBytes   int               `json:"min-vector-bytes"`
	VectorBytesEdits []VectorBytesEdit `json:"vector-bytes-edits"`
	// HostFlags map the host's /proc/cpuinfo flags to the features graphc's decisions read: a
	// target that has them offers --mcpu=native.
	HostFlags []HostFlag `json:"host-cpu-flags"`
	// HostGOARCH is the GOARCH of hosts that run the target's code (--mcpu=native is only
	// offered there), HostCPUInfoKey the /proc/cpuinfo key of their feature flags ("flags"
	// when empty; "Features" on AArch64).
	HostGOARCH     string `json:"host-goarch"`
	HostCPUInfoKey string `json:"host-cpuinfo-key"`
}

// TileShape is a register tile of rows by vectors accumulators, for tiles at least
// VectorBytesAtLeast wide.
type TileShape struct {
	VectorBytesAtLeast int `json:"vector-bytes-at-least"`
	Rows               int `json:"rows"`
	Vectors            int `json:"vectors"`
	// Rolled says that the tile takes all the vector registers (6×2 in the 16 of SSE and
	// AVX2): the loops of its reduction nests stay rolled (lower/loopmd.go), and over more
	// rows than Rows it may take one of its Alternatives (tileCost).
	Rolled bool `json:"rolled"`
	// PanelPrefetchMaxRowTiles bounds the row tiles that share a packed panel for which the
	// micro-kernels prefetch the next column's panel (0: no bound). Every one of those tiles
	// issues the same prefetches, one per vector and reduction point, so that with many of
	// them the prefetches only cost issue slots (and a TLB walk per row of a wide operand)
	// while the copy they speed up is already shared. AVX2 6×2 tiles on Zen 3, one thread,
	// ms with and without the prefetch: 24×1024·1024×4096 (4 row tiles) 4.2 / 5.0, 60 rows
	// (10) 10.8 / 10.6, conv 1×1 7²×512→2048 (14) 3.1 / 2.7, 1×1 14²×1024→256 (42) 2.4 /
	// 2.0, 128×256·256×16384 (22) 35 / 20.
	PanelPrefetchMaxRowTiles int `json:"panel-prefetch-max-row-tiles"`
	// PanelSpreadMaxRowTiles bounds the row tiles of a column, above PanelPrefetchMaxRowTiles,
	// that share the prefetch of the next column's compile-time panel (0: none): tile t of
	// the column's T prefetches the t-th T-th of it, one prefetch a reduction step, so that
	// the column's tiles fetch the next panel once between them, spread over the column's
	// work. Without it, few rows per column (a convolution at 7×7) leave the weights'
	// stream to the first tile of each column, which waits on memory while the others wait
	// on nothing; with many the hardware prefetchers keep up and the prefetches only cost
	// issue slots. AVX2 4×3 and 5×2 tiles on Zen 3, one thread, weights colder than L3
	// (chains of convolutions, 50 MB of weights), ms per convolution without / with: 3×3
	// 7²×512 (14 tiles a column) 2.8 / 2.5, 1×1 7²×512→2048 (14) 1.24 / 1.10, 1×1
	// 7²×2048→512 (14) 1.25 / 1.09; 3×3 14²×256 (42) 2.50 / 2.59, 1×1 14² (42) no change.
	PanelSpreadMaxRowTiles int `json:"panel-spread-max-row-tiles"`
	// ChunkPanelBytes bounds the panel of one reduction chunk over every reduction dim, not
	// only the first (0: no bound): a 3×3 convolution's chunk of input channels reads 9 taps
	// of nr weights per channel, and a whole reduction's (128 channels: 72 KiB with 6×2) read
	// in place came from L2 for every row tile. AVX2 on Zen 3, one thread: conv 3×3 28²×128
	// 3.7 -> 3.2 ms, dilated 3×3 28²×256 20.6 -> 14.5 ms (kc=64, packed).
	ChunkPanelBytes int `json:"chunk-panel-bytes"`
	// Alternatives are other [rows, vectors] shapes for a known number of rows above Rows:
	// the one tileCost finds cheapest is taken when it saves at least tileShapeMargin over
	// this shape (a 14-wide convolution's rows of 6, 6 and 2 against 5, 5 and 4; 7 rows as
	// 4 and 3 rows of 3 vectors). Rolled shapes only: the others hold their rows whole.
	Alternatives [][2]int `json:"alternatives"`
}

// TileShapeAt returns the register tile of tiles vecBytes wide: the first of
// RegisterTileShapes that applies, else 6×2 (16 registers).
func (t *Target) TileShapeAt(vecBytes int) TileShape {
	for _, s := range t.RegisterTileShapes {
		if vecBytes >= s.VectorBytesAtLeast && s.Rows > 0 && s.Vectors > 0 {
			return s
		}
	}
	return TileShape{Rows: 6, Vectors: 2}
}

// TileShapeFor returns the rows and vectors of TileShapeAt(vecBytes).
func (t *Target) TileShapeFor(vecBytes int) (rows, vectors int) {
	s := t.TileShapeAt(vecBytes)
	return s.Rows, s.Vectors
}

// LoadTarget returns the named target with its inherited fields resolved.
func LoadTarget(name string) (*Target, error) {
	t, err := loadTarget(name, 0)
	if err != nil {
		return nil, err
	}
	if t.Abstract {
		return nil, fmt.Errorf("target %q only holds shared fields (targets: %s)", name, strings.Join(Targets(), ", "))
	}
	return t, nil
}

func loadTarget(name string, depth int) (*Target, error) {
	if depth > 8 {
		return nil, fmt.Errorf("target %q: inheritance chain deeper than 8", name)
	}
	data, err := targetFS.ReadFile("targets/" + name + ".json")
	if err != nil || strings.ContainsAny(name, "/\\") {
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
		t.Abstract = false
		if _, ok := raw["cpu"]; ok {
			// a CPU names its own LLVM CPU unless it says otherwise
			t.LLVMCPU = ""
		}
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

// Targets lists the available target names (CPU specs included, shared-field files not).
func Targets() []string {
	ents, _ := targetFS.ReadDir("targets")
	var out []string
	for _, e := range ents {
		name := strings.TrimSuffix(e.Name(), ".json")
		if t, err := loadTarget(name, 0); err == nil && !t.Abstract {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// IsCPU reports whether t is a CPU spec: a file named after its CPU.
func (t *Target) IsCPU() bool { return t.Name == t.CPU }

// CPUs returns the CPU specs of t's architecture (same triple), sorted by name.
func (t *Target) CPUs() []*Target {
	var out []*Target
	if _, err := targetFS.ReadFile("targets/" + t.CPU + ".json"); err != nil && !t.Abstract {
		// the family's own CPU has no file of its own (aarch64's generic)
		out = append(out, t)
	}
	for _, name := range Targets() {
		c, err := loadTarget(name, 0)
		if err == nil && c.IsCPU() && c.Triple == t.Triple {
			out = append(out, c)
		}
	}
	return out
}

// ForCPU returns t as CPU cpu, as llc's -mcpu: the CPU spec's default features and vector
// width with t's triple. "" and t's own CPU return t; "native" reads the host's CPU flags, on a
// host of the target's architecture (HostGOARCH). An unknown CPU is an error listing the valid ones.
func (t *Target) ForCPU(cpu string) (*Target, error) {
	if cpu == "" || cpu == t.CPU {
		return t, nil
	}
	if cpu == "native" {
		if len(t.HostFlags) == 0 {
			return nil, fmt.Errorf("--mcpu=native: only for x86-64 and aarch64 (target %s)", t.Name)
		}
		if t.HostGOARCH != "" && t.HostGOARCH != runtime.GOARCH {
			return nil, fmt.Errorf("--mcpu=native: the host is %s, not %s (target %s): name its CPU", runtime.GOARCH, t.HostGOARCH, t.Name)
		}
		n := *t
		n.CPU, n.LLVMCPU, n.Features = "native", "", ""
		n.ImpliedFeatures, n.VectorBytes = t.hostFeatures()
		return &n, nil
	}
	if c, err := loadTarget(cpu, 0); err == nil && c.IsCPU() && c.Triple == t.Triple {
		return c, nil
	}
	var names []string
	for _, c := range t.CPUs() {
		names = append(names, c.CPU)
	}
	if len(t.HostFlags) > 0 {
		names = append(names, "native")
	}
	return nil, fmt.Errorf("unknown CPU %q for target %s (valid: %s)", cpu, t.Name, strings.Join(names, ", "))
}

// LLVMName returns the CPU name LLVM is given.
func (t *Target) LLVMName() string {
	if t.LLVMCPU != "" {
		return t.LLVMCPU
	}
	return t.CPU
}

// MergeFeatures applies llc -mattr edits to a feature list: each "+f" or "-f" of edits replaces
// any earlier entry for f, and "-f" also removes the enabled features that extend f by name
// (LLVM disables the features that imply f: "-hvx" drops "+hvxv68" and "+hvx-length128b").
// Entries keep their order; new ones are appended.
func MergeFeatures(base, edits string) string {
	var out []string
	add := func(x string) {
		x = strings.TrimSpace(x)
		if len(x) < 2 || (x[0] != '+' && x[0] != '-') {
			if x != "" {
				out = append(out, x)
			}
			return
		}
		name := x[1:]
		kept := out[:0]
		for _, y := range out {
			yn := strings.TrimLeft(y, "+-")
			switch {
			case yn == name:
			case x[0] == '-' && y[0] == '+' && strings.HasPrefix(yn, name):
			default:
				kept = append(kept, y)
			}
		}
		out = append(kept, x)
	}
	for _, x := range strings.Split(base, ",") {
		add(x)
	}
	for _, x := range strings.Split(edits, ",") {
		add(x)
	}
	return strings.Join(out, ",")
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

// CPUTable returns the Markdown table of every CPU spec (the README's): target, CPU, the
// features emitted by default, those the CPU implies, and the vector unit.
func CPUTable() string {
	var sb strings.Builder
	sb.WriteString("| `--target` | `--mcpu` | default features (`--mattr` edits them) | implied by the CPU | vectors |\n|---|---|---|---|---|\n")
	code := func(s string) string {
		if s == "" {
			return "—"
		}
		return "`" + s + "`"
	}
	for _, fam := range []string{"x86-64", "aarch64", "hexagon"} {
		t, err := LoadTarget(fam)
		if err != nil {
			continue
		}
		for _, c := range t.CPUs() {
			cpu := "`" + c.CPU + "`"
			if c.CPU == t.CPU {
				cpu += " (default)"
			}
			if c.LLVMCPU != "" {
				cpu += " as `" + c.LLVMCPU + "`"
			}
			vec := fmt.Sprintf("%d bytes", c.VectorBytes)
			if c.VectorIntOnly {
				vec += ", integer only"
			}
			fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s |\n", fam, cpu, code(c.Features), code(c.ImpliedFeatures), vec)
		}
	}
	return sb.String()
}
