package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHostDependentTests: a test depends on the host's CPU when it names a CPU beyond the
// baseline or asks for Native code, directly, through package-level variables (one naming
// another), through helpers two calls deep or through a method, and builds or asks e2e; tests
// of the baseline, of Hexagon and of AArch64 do not, nor one that only lowers for a CPU.
func TestHostDependentTests(t *testing.T) {
	src := `package x_test

import (
	"testing"

	"github.com/graphc/graphc/internal/e2e"
)

var cpus = []string{"", "haswell"}
var machines = []string{cpus[1]}
var best = e2e.Native()

type suite struct{}

func (suite) run(t *testing.T) { build(t, e2e.Machine{Target: "x86-64", Attrs: "+avx512f"}) }

func build(t *testing.T, m e2e.Machine) { e2e.BuildBatch(nil, "", m, nil) }
func outer(t *testing.T)                { inner(t) }
func inner(t *testing.T)                { build(t, e2e.Machine{Target: "x86-64", CPU: "skylake-avx512"}) }

func TestLiteral(t *testing.T)   { build(t, e2e.Machine{Target: "x86-64", CPU: "znver4"}) }
func TestMarch(t *testing.T)     { e2e.Build(nil, "", nil, nil, "-march=native") }
func TestVarChain(t *testing.T)  { build(t, e2e.Machine{CPU: machines[0]}) }
func TestIROnly(t *testing.T)    { lower.Lower(nil, nil, lower.Config{CPU: "skylake-avx512"}) }
func TestNative(t *testing.T)    { build(t, best) }
func TestHelpers(t *testing.T)   { outer(t) }
func TestMethod(t *testing.T)    { suite{}.run(t) }
func TestBaseline(t *testing.T)  { build(t, e2e.Host()) }
func TestHexagon(t *testing.T)   { build(t, e2e.HexagonHVX()) }
func TestAArch64(t *testing.T)   { build(t, e2e.AArch64("cortex-x2")) }
func TestBaselineX(t *testing.T) { build(t, e2e.Machine{Target: "x86-64", CPU: "x86-64", VectorBytes: 64}) }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x_test.go", src, 0)
	require.NoError(t, err)
	require.Equal(t, []string{"TestHelpers", "TestLiteral", "TestMarch", "TestMethod", "TestNative", "TestVarChain"},
		hostDependent([]*ast.File{f}, newCPUNamer()))
	// lower's: its AVX-512 and native kernels, not its AArch64 or Hexagon ones
	got, err := HostDependentTests(filepath.Join("..", "..", "lower"))
	require.NoError(t, err)
	require.Subset(t, got, []string{"TestContractionKernels", "TestNBitsKernelValues", "TestIntDotKernels", "TestEpilogues"})
	require.NotContains(t, got, "TestAArch64Contractions")
	require.NotContains(t, got, "TestRequirementsChecked")
	require.NotContains(t, got, "TestPrintAfterKeepsModule", "lowers for skylake-avx512, reads the IR")
}

// TestSkipUncapped: under GRAPHC_HOST_CPU=x86-64-v3 with GRAPHC_HOST_CPU_ONLY=1 a test skips
// the machines the cap leaves alone (baseline and x86-64-v3 code, Hexagon, AArch64) and keeps
// native code and code beyond AVX2; without either variable it skips nothing.
func TestSkipUncapped(t *testing.T) {
	if ok, why := HostCanExecute("x86-64-v3", ""); !ok {
		t.Skip("the cap x86-64-v3 needs an AVX2 host: " + why)
	}
	same := []Machine{Host(), {Target: "x86-64", CPU: "x86-64-v3"}, {Target: "x86-64", VectorBytes: 64}, HexagonHVX(), AArch64("cortex-x2")}
	changed := []Machine{{Target: "x86-64", CPU: "native", CFlags: []string{"-march=native"}}, {Target: "x86-64", CPU: "skylake-avx512"},
		{Target: "x86-64", Attrs: "+avx512f"}, {Target: "x86-64", CFlags: []string{"-march=znver4"}}}
	for _, m := range same {
		require.False(t, m.capChanges("x86-64-v3"), m.String())
	}
	for _, m := range changed {
		require.True(t, m.capChanges("x86-64-v3"), m.String())
	}
	t.Setenv(HostCPUEnv, "x86-64-v3")
	require.False(t, SkipUncapped(t, Host()), "without GRAPHC_HOST_CPU_ONLY")
	t.Setenv(CappedOnlyEnv, "1")
	// Native() under the cap names x86-64-v3, but it is the host's best code, which an AVX-512
	// host runs as AVX-512 uncapped: the capped rerun is what runs its AVX2 form
	require.Equal(t, "x86-64-v3", Native().CPU)
	require.False(t, SkipUncapped(t, Native()), "native code under the cap")
	for _, m := range same {
		require.True(t, SkipUncapped(t, m), m.String())
	}
	for _, m := range changed {
		require.False(t, SkipUncapped(t, m), m.String())
	}
	t.Setenv(HostCPUEnv, "")
	require.False(t, SkipUncapped(t, Host()), "without a cap")
}
