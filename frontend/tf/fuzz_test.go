// This file holds the fuzz target of both readers (binary and text GraphDefs) and the
// generator of its seed corpus (testdata/fuzz/FuzzReadText, rewritten with -update): one small
// graph per op family, in both forms.

package tf_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/internal/fuzzcheck"
	"github.com/graphc/graphc/internal/tfgen"
	"github.com/graphc/graphc/ir"
)

var update = flag.Bool("update", false, "rewrite the fuzz seed corpus of testdata/fuzz/FuzzReadText")

// seedGraphs returns one small graph per op family.
func seedGraphs() map[string]*tfgen.Graph {
	seeds := map[string]*tfgen.Graph{}
	add := func(name string, build func(g *tfgen.Graph)) {
		g := tfgen.New()
		build(g)
		seeds[name] = g
	}
	add("math", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, -1, 4)
		g.Placeholder("y", ir.F32, 4)
		g.Node("AddV2", "a", []string{"x", "y"})
		g.Node("Relu6", "r", []string{"a"})
		g.Node("Rsqrt", "q", []string{"y"})
		g.Node("SquaredDifference", "d", []string{"r", "q"})
		g.Node("Cast", "c", []string{"d"}, tfgen.Type("DstT", ir.I32))
		g.Node("Softmax", "s", []string{"d"})
	})
	add("contraction", func(g *tfgen.Graph) {
		g.Placeholder("a", ir.F32, 2, 5, 3)
		g.Placeholder("b", ir.F32, 4, 5)
		g.Node("BatchMatMulV2", "m", []string{"a", "b"}, tfgen.Bool("adj_x", true), tfgen.Bool("adj_y", true))
		g.Const("bias", randConst(1, 4))
		g.Node("BiasAdd", "y", []string{"m", "bias"})
		g.Node("MatMul", "z", []string{"b", "b"}, tfgen.Bool("transpose_b", true))
	})
	add("reduce", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, -1, 3, 4)
		g.Int32s("axes", []int64{0, -1})
		g.Node("Mean", "m", []string{"x", "axes"}, tfgen.Bool("keep_dims", true))
		g.Node("Prod", "p", []string{"x", "axes"})
		g.Int32s("one", []int64{1}, []int64{}...)
		g.Node("ArgMax", "a", []string{"x", "one"}, tfgen.Type("output_type", ir.I32))
	})
	add("batchnorm", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, 1, 4, 4, 3)
		for _, n := range []string{"scale", "offset", "mean", "var"} {
			g.Const(n, randConst(2, 3))
		}
		g.Node("FusedBatchNormV3", "y", []string{"x", "scale", "offset", "mean", "var"}, tfgen.Bool("is_training", false))
	})
	add("layout", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, -1, 2, 3)
		g.Int32s("perm", []int64{0, 2, 1})
		g.Node("Transpose", "t", []string{"x", "perm"})
		g.Int32s("shape", []int64{-1, 6})
		g.Node("Reshape", "r", []string{"t", "shape"})
		g.Int32s("d", []int64{1}, []int64{}...)
		g.Node("ExpandDims", "e", []string{"r", "d"})
		g.Node("Squeeze", "s", []string{"e"}, tfgen.Ints("squeeze_dims", 1))
		g.Int32s("axis", []int64{-1}, []int64{}...)
		g.Node("ConcatV2", "c", []string{"s", "r", "axis"})
		g.Node("Pack", "p", []string{"s", "r"}, tfgen.Int("axis", 1))
	})
	add("slice", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, 4, -1, 5)
		g.Int32s("b", []int64{1, 0, -1})
		g.Int32s("e", []int64{0, 2, 0})
		g.Int32s("s", []int64{1, 1, -2})
		g.Node("StridedSlice", "y", []string{"x", "b", "e", "s"}, tfgen.Int("begin_mask", 1), tfgen.Int("ellipsis_mask", 2),
			tfgen.Int("new_axis_mask", 8), tfgen.Int("shrink_axis_mask", 1))
		g.Int32s("begin", []int64{1, 0, 2})
		g.Int32s("size", []int64{2, -1, 3})
		g.Node("Slice", "z", []string{"x", "begin", "size"})
	})
	add("pad", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, 3, 4)
		g.Int32s("p", []int64{1, 2, 3, 0}, 2, 2)
		g.Node("MirrorPad", "s", []string{"x", "p"}, tfgen.String("mode", "SYMMETRIC"))
		g.Node("MirrorPad", "r", []string{"x", "p"}, tfgen.String("mode", "REFLECT"))
		g.Const("v", randConst(3))
		g.Node("PadV2", "c", []string{"x", "p", "v"})
	})
	add("conv", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, 1, 3, 7, 6)
		g.Const("f", randConst(4, 3, 2, 3, 2))
		g.Node("Conv2D", "c", []string{"x", "f"}, tfgen.String("padding", "SAME"), tfgen.String("data_format", "NCHW"),
			tfgen.Ints("strides", 1, 1, 2, 1), tfgen.Ints("dilations", 1, 1, 1, 2))
		g.Node("DepthwiseConv2dNative", "d", []string{"x", "f"}, tfgen.String("padding", "VALID"), tfgen.String("data_format", "NCHW"))
		g.Node("AvgPool", "a", []string{"c"}, tfgen.String("padding", "SAME"), tfgen.String("data_format", "NCHW"),
			tfgen.Ints("ksize", 1, 1, 3, 3), tfgen.Ints("strides", 1, 1, 2, 2))
		g.Node("MaxPool", "m", []string{"d"}, tfgen.String("padding", "EXPLICIT"), tfgen.String("data_format", "NCHW"),
			tfgen.Ints("explicit_paddings", 0, 0, 0, 0, 1, 0, 0, 1), tfgen.Ints("ksize", 1, 1, 2, 2), tfgen.Ints("strides", 1, 1, 1, 1))
	})
	add("symbolic_shape", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, -1, 2, 3)
		kerasFlatten(g, "x")
	})
	add("index", func(g *tfgen.Graph) {
		g.Placeholder("x", ir.F32, 4, 6)
		idx := ir.NewTensor(ir.I32, []int64{3})
		copy(idx.I, []int64{2, 0, 3})
		g.Const("idx", idx)
		g.Int32s("axis", []int64{0}, []int64{}...)
		g.Node("GatherV2", "g", []string{"x", "idx", "axis"})
		g.Int32s("reps", []int64{1, 2})
		g.Node("Tile", "t", []string{"g", "reps"})
		g.Int32s("sizes", []int64{2, -1})
		g.Int32s("one", []int64{1}, []int64{}...)
		g.Node("SplitV", "s", []string{"t", "sizes", "one"}, tfgen.Int("num_split", 2))
		g.Node("Unpack", "u", []string{"s:1"}, tfgen.Int("num", 3))
	})
	seeds["classifier"] = tfgen.Classifier()
	return seeds
}

// TestFuzzCorpus keeps testdata/fuzz/FuzzReadText in step with seedGraphs: every seed
// imports, and its text and binary corpus entries decode to it.
func TestFuzzCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReadText")
	for name, g := range seedGraphs() {
		_, err := g.Import()
		require.NoError(t, err, name)
		text, err := g.Text()
		require.NoError(t, err)
		bin, err := g.Bytes()
		require.NoError(t, err)
		for _, form := range []struct {
			suffix string
			data   []byte
			text   bool
		}{{"text", text, true}, {"binary", bin, false}} {
			path := filepath.Join(dir, "seed_"+name+"_"+form.suffix)
			if *update {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				entry := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\nbool(%v)\n", form.data, form.text)
				require.NoError(t, os.WriteFile(path, []byte(entry), 0o644))
			}
			have, err := os.ReadFile(path)
			require.NoError(t, err, "run go test ./frontend/tf -run TestFuzzCorpus -update")
			lines := strings.Split(string(have), "\n")
			require.GreaterOrEqual(t, len(lines), 3, path)
			require.Equal(t, fmt.Sprintf("bool(%v)", form.text), lines[2], path)
			data, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
			require.NoError(t, err, path)
			gd, err := tf.Unmarshal([]byte(data), form.text)
			require.NoError(t, err, path)
			require.True(t, proto.Equal(g.G, gd), "%s is stale: run go test ./frontend/tf -run TestFuzzCorpus -update", path)
		}
	}
}

// FuzzReadText feeds both readers: whatever decodes must import into a graph the verifier
// accepts or be rejected with an error (not one wrapping volume.ErrInternal, a bug), and the
// evaluator must run the graph (symbolic dims bound to 2, zero inputs) without panicking, all
// within fuzzcheck.TimeLimit.
func FuzzReadText(f *testing.F) {
	for _, p := range []string{"../../testdata/models/tf/matmul_bandpart.pbtxt", "../../testdata/models/tf/matmul_diagpart.pbtxt",
		"../../testdata/models/tf/matmul_transpose_bandpart.pbtxt"} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data, true)
			if gd, err := tf.Unmarshal(data, true); err == nil {
				if bin, err := proto.Marshal(gd); err == nil {
					f.Add(bin, false)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, text bool) {
		defer fuzzcheck.Watchdog(fuzzcheck.TimeLimit)()
		gd, err := tf.Unmarshal(data, text)
		if err != nil {
			return
		}
		g, err := tf.Import(gd, "fuzz", tf.WithMaxFileSize(1<<20))
		fuzzcheck.Imported(t, g, err)
	})
}
