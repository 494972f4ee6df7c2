// This file tests the stage table (stages.go) and Config.PrintAfter: the stage names, the errors
// for unknown ones, the dumps (a partial plan after each stage, the whole plan after the last)
// and that printing them leaves the module as it was.

package lower_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

func TestStageNames(t *testing.T) {
	require.Equal(t, []string{"regions", "buffers", "kernels", "entry"}, lower.Stages())
	got, err := lower.SelectStages("kernels, regions")
	require.NoError(t, err)
	assert.Equal(t, []string{"regions", "kernels"}, got, "in stage order")
	got, err = lower.SelectStages("all")
	require.NoError(t, err)
	assert.Equal(t, lower.Stages(), got)
	got, err = lower.SelectStages("")
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = lower.SelectStages("regions,regoins")
	require.ErrorIs(t, err, lower.ErrUnknownStage)
	require.ErrorContains(t, err, `unknown lowering stage "regoins"; stages are: regions, buffers, kernels, entry (or all)`)
	_, err = lower.NewBuilder(lower.Config{PrintAfter: "tiles"})
	require.ErrorIs(t, err, lower.ErrUnknownStage)
}

// TestStagesDocumented: the package doc's "Stages and the plan" names every stage.
func TestStagesDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	text := string(doc)
	i := strings.Index(text, "# Stages and the plan")
	require.GreaterOrEqual(t, i, 0)
	section := text[i:]
	if j := strings.Index(section[1:], "\n// # "); j >= 0 {
		section = section[:j]
	}
	for _, s := range lower.Stages() {
		require.Contains(t, section, s+" (", "doc.go must say what stage %s decides", s)
	}
	require.Contains(t, section, "--print-lowering-after")
}

// TestPrintAfterKeepsModule lowers every graph of testdata/lowering with and without
// PrintAfter=all: the modules and plans are the same text, the dumps come in stage order, the
// dump after the last stage is the plan, and every earlier dump prints a part of it.
func TestPrintAfterKeepsModule(t *testing.T) {
	files, err := filepath.Glob("../testdata/lowering/*.graph")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, c := range loweringCases(string(data)) {
			testPrintAfterKeepsModule(t, filepath.Base(f)+"/"+c.name, c.src)
		}
	}
}

// testPrintAfterKeepsModule checks PrintAfter=all on one graph, for x86-64 and Hexagon.
func testPrintAfterKeepsModule(t *testing.T, file, src string) {
	t.Helper()
	stages := lower.Stages()
	for _, m := range []struct{ target, cpu string }{{"x86-64", "skylake-avx512"}, {"hexagon", ""}} {
		name := file + "/" + m.target
		tgt, err := lower.LoadTarget(m.target)
		require.NoError(t, err)
		lowerIt := func(printAfter string, dump *bytes.Buffer) *lower.Module {
			g, err := ir.Parse(src)
			require.NoError(t, err, name)
			mod, err := lower.Lower(context.Background(), g, lower.Config{Target: tgt, CPU: m.cpu, PrintAfter: printAfter, Dump: dump})
			require.NoError(t, err, name)
			return mod
		}
		plain := lowerIt("", nil)
		var dump bytes.Buffer
		printed := lowerIt("all", &dump)
		require.Equal(t, plain.String(), printed.String(), "%s: PrintAfter changed the module", name)
		require.Equal(t, plain.Plan(), printed.Plan(), name)
		full := plain.Plan()
		parts := strings.Split(dump.String(), "// -----// Lowering Dump After ")
		require.Len(t, parts, len(stages)+1, name)
		require.Empty(t, parts[0], name)
		for i, s := range stages {
			head, body, ok := strings.Cut(parts[i+1], " //----- //\n")
			require.True(t, ok, name)
			require.Equal(t, s, head, "%s: dumps in stage order", name)
			if i == len(stages)-1 {
				require.Equal(t, full, body, "%s: the dump after %s is the plan", name, s)
				continue
			}
			first, rest, _ := strings.Cut(body, "\n")
			require.Contains(t, first, " (after "+s+"): ", name)
			requireSubsequence(t, strings.Split(rest, "\n"), strings.Split(full, "\n"), name+" after "+s)
		}
	}
}

// requireSubsequence checks that the lines of part appear in whole, in order.
func requireSubsequence(t *testing.T, part, whole []string, name string) {
	t.Helper()
	j := 0
	for _, l := range part {
		for j < len(whole) && whole[j] != l {
			j++
		}
		require.Less(t, j, len(whole), "%s: line %q is not in the plan (or out of order)", name, l)
		j++
	}
}
