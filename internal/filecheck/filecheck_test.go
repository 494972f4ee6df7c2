package filecheck_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/filecheck"
)

const out = `define i32 @k0(float* %res) {
entry:
  %v = load <16 x float>, <16 x float>* %p
  call void @llvm.x86.avx512.foo()
  ret i32 0
}
define i32 @main_graph() {
  ret i32 0
}`

func TestCheck(t *testing.T) {
	cases := []struct {
		name, src string
		ok        bool
	}{
		{"check", "// CHECK: define i32 @k0(\n// CHECK: load <16 x float>", true},
		{"order", "// CHECK: load <16 x float>\n// CHECK: define i32 @k0(", false},
		{"missing", "// CHECK: <8 x float>", false},
		{"regex", "// CHECK: load <{{[0-9]+}} x float>", true},
		{"next", "// CHECK: entry:\n// CHECK-NEXT: load <16 x float>", true},
		{"next fails", "// CHECK: entry:\n// CHECK-NEXT: ret i32 0", false},
		{"next first", "// CHECK-NEXT: define", false},
		{"same", "// CHECK: define i32 @k0(\n// CHECK-SAME: %res", true},
		{"same fails", "// CHECK: define i32 @k0(\n// CHECK-SAME: @k0", false},
		{"not", "// CHECK-LABEL: define i32 @main_graph(\n// CHECK-NOT: call", true},
		{"not between", "// CHECK: entry:\n// CHECK-NOT: call\n// CHECK: ret i32 0", false},
		{"not at end", "// CHECK: ret i32 0\n// CHECK-NOT: @main_graph", false},
		{"no directives", "// CHEKC: define", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := filecheck.Check(c.src, out, "")
			if c.ok {
				assert.NoError(t, err)
			} else {
				assert.Error(t, err)
			}
		})
	}
}

func TestPrefix(t *testing.T) {
	src := "// RUN: graphc --emit=plan --check-prefix=PLAN %s\n// CHECK: nothing like this\n// PLAN: @k0\n// PLAN-NEXT: entry:"
	require.NoError(t, filecheck.Check(src, out, "PLAN"))
	require.Error(t, filecheck.Check(src, out, ""))
	assert.Equal(t, []string{"graphc --emit=plan --check-prefix=PLAN %s"}, filecheck.RunLines(src))
	assert.Equal(t, []string{"a", "b c", "d"}, filecheck.SplitArgs(`a "b c" 'd'`))
}

// TestVariables: [[NAME:regex]] captures what it matched and [[NAME]] must match the same text
// later (numbered temporaries checked by their use, not their number).
func TestVariables(t *testing.T) {
	const ir = `  %7 = fadd float %3, %4
  %8 = fmul float %7, %7
  store float %8, float* %p
  store float %7, float* %q`
	for _, tc := range []struct {
		name, src string
		ok        bool
	}{
		{"use", "// CHECK: [[S:%[0-9]+]] = fadd\n// CHECK-NEXT: [[P:%[0-9]+]] = fmul float [[S]], [[S]]\n// CHECK-NEXT: store float [[P]]", true},
		{"wrong use", "// CHECK: [[S:%[0-9]+]] = fadd\n// CHECK: store float [[S]], float* %p", false},
		{"undefined", "// CHECK: store float [[X]]", false},
		{"not", "// CHECK: [[S:%[0-9]+]] = fadd\n// CHECK-NOT: store float [[S]], float* %p\n// CHECK: float* %q", true},
		{"not fails", "// CHECK: [[P:%[0-9]+]] = fmul\n// CHECK-NOT: store float [[P]]\n// CHECK: float* %q", false},
		{"literal regex meta", "// CHECK: [[S:%[0-9]+]] = fadd float %3\n// CHECK: fmul float [[S]]", true},
	} {
		err := filecheck.Check(tc.src, ir, "")
		if tc.ok {
			require.NoError(t, err, tc.name)
		} else {
			require.Error(t, err, tc.name)
		}
	}
}
