package graphc_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// malformed returns hostile or broken models: name → (file bytes, expected message fragment).
func malformed(t *testing.T) map[string]struct {
	data []byte
	want string
} {
	out := map[string]struct {
		data []byte
		want string
	}{}
	add := func(name string, m *onnxpb.ModelProto, want string) {
		b, err := proto.Marshal(m)
		require.NoError(t, err)
		out[name] = struct {
			data []byte
			want string
		}{b, want}
	}
	good, err := onnxgen.MatMulTrilu(8, true).Bytes()
	require.NoError(t, err)
	out["truncated.onnx"] = struct {
		data []byte
		want string
	}{good[:len(good)/2], "not an ONNX model"}
	r := rand.New(rand.NewPCG(1, 1))
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(r.IntN(256))
	}
	out["random.onnx"] = struct {
		data []byte
		want string
	}{junk, "junk"}

	base := func() *onnxgen.Model {
		m := onnxgen.New("h", 17)
		m.Input("X", ir.F32, 4)
		return m
	}
	// a 10^12-element constant claimed in a small file
	m := base()
	m.G.Initializer = append(m.G.Initializer, &onnxpb.TensorProto{Name: proto.String("W"), DataType: proto.Int32(1), Dims: []int64{1000000, 1000000}, RawData: []byte{1, 2, 3, 4}})
	m.Node("Add", "add", []string{"X", "W"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	add("huge_constant.onnx", m.Proto(), "W")
	// dims whose product overflows int64
	m = base()
	m.G.Initializer = append(m.G.Initializer, &onnxpb.TensorProto{Name: proto.String("W"), DataType: proto.Int32(1), Dims: []int64{1 << 40, 1 << 40}, RawData: []byte{}})
	m.Node("Add", "add", []string{"X", "W"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	add("overflow_dims.onnx", m.Proto(), "W")
	// negative dim
	m = base()
	m.G.Initializer = append(m.G.Initializer, &onnxpb.TensorProto{Name: proto.String("W"), DataType: proto.Int32(1), Dims: []int64{-4}, RawData: []byte{}})
	m.Node("Add", "add", []string{"X", "W"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	add("negative_dim.onnx", m.Proto(), "negative")
	// raw_data length does not match the shape
	m = base()
	m.G.Initializer = append(m.G.Initializer, &onnxpb.TensorProto{Name: proto.String("W"), DataType: proto.Int32(1), Dims: []int64{4}, RawData: []byte{1, 2, 3}})
	m.Node("Add", "add", []string{"X", "W"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	add("raw_data_mismatch.onnx", m.Proto(), "raw_data has 3 bytes")
	// a value no node produces
	m = base()
	m.Node("Add", "add", []string{"X", "Z"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	add("no_producer.onnx", m.Proto(), `"Z"`)
	// an output never produced
	m = base()
	m.Node("Relu", "relu", []string{"X"}, []string{"Y"})
	m.Output("Q", ir.F32, 4)
	add("missing_output.onnx", m.Proto(), `"Q"`)
	// a cycle: two nodes feeding each other
	m = base()
	m.Node("Add", "a", []string{"X", "B"}, []string{"A"})
	m.Node("Relu", "b", []string{"A"}, []string{"B"})
	m.Output("B", ir.F32, 4)
	add("cycle.onnx", m.Proto(), `the graph has a cycle: node "a" (Add) reads "B" from node "b" (Relu), which reads "A" from node "a" (Add)`)
	// two nodes producing the same name
	m = base()
	m.Node("Relu", "r1", []string{"X"}, []string{"Y"})
	m.Node("Neg", "r2", []string{"X"}, []string{"Y"})
	m.Output("Y", ir.F32, 4)
	add("duplicate_output.onnx", m.Proto(), `"Y"`)
	// value_info disagreeing with the node's output type
	m = base()
	m.Node("Relu", "relu", []string{"X"}, []string{"Y"})
	m.G.ValueInfo = append(m.G.ValueInfo, onnxgen.ValueInfo("Y", ir.F32, 5))
	m.Output("Y", ir.F32, 4)
	add("value_info_mismatch.onnx", m.Proto(), `"Y"`)
	// a huge attribute string
	m = base()
	m.Node("Relu", "relu", []string{"X"}, []string{"Y"}, onnxgen.StringAttr("junk", strings.Repeat("x", 2<<20)))
	m.Output("Y", ir.F32, 4)
	add("long_string_attr.onnx", m.Proto(), "attribute junk of 2097152 bytes")
	// an input declaring 2^80 elements, and one whose dims only overflow int64 together
	for _, d := range []int64{1 << 40, 1 << 32} {
		m = base()
		m.Input("Z", ir.F32, d, d)
		m.Node("Relu", "relu", []string{"Z"}, []string{"Y"})
		m.Output("Y", ir.F32, d, d)
		add(fmt.Sprintf("absurd_input_dims_%d.onnx", d), m.Proto(), `input "Z"`)
	}
	// a negative dim_value declared by an input
	m = base()
	m.Input("Z", ir.F32, int64(-3))
	m.Node("Relu", "relu", []string{"Z"}, []string{"Y"})
	m.Output("Y", ir.F32, 3)
	add("negative_input_dim.onnx", m.Proto(), "negative dimension -3")
	// a small constant shape expanding to 2^62 elements
	m = base()
	m.Init("S", &ir.Tensor{Elem: ir.I64, Shape: []int64{3}, I: []int64{1 << 30, 1 << 30, 4}})
	m.Node("Expand", "expand", []string{"X", "S"}, []string{"Y"})
	m.Output("Y", ir.F32, 1<<30, 1<<30, 4)
	add("expand_to_absurd_shape.onnx", m.Proto(), `node "expand"`)
	// a subgraph nested 500 deep in If attributes (each If lacks its else branch: the outermost
	// is rejected before anything nested is imported)
	m = base()
	m.Init("C", &ir.Tensor{Elem: ir.Bool, Shape: []int64{}, I: []int64{1}})
	inner := &onnxpb.GraphProto{Name: proto.String("leaf")}
	for i := 0; i < 500; i++ {
		node := &onnxpb.NodeProto{OpType: proto.String("If"), Input: []string{"C"}, Output: []string{"Y"},
			Attribute: []*onnxpb.AttributeProto{{Name: proto.String("then_branch"), Type: onnxpb.AttributeProto_GRAPH.Enum(), G: inner}}}
		inner = &onnxpb.GraphProto{Name: proto.String(fmt.Sprintf("g%d", i)), Node: []*onnxpb.NodeProto{node}}
	}
	m.G.Node = append(m.G.Node, inner.Node[0])
	m.Output("Y", ir.F32, 4)
	add("nested_subgraphs.onnx", m.Proto(), "If")
	// 4 GiB of floats: fine on x86-64, beyond what 32-bit Hexagon addresses
	m = base()
	m.Input("Z", ir.F32, 1<<20, 1<<10)
	m.Node("Relu", "relu", []string{"Z"}, []string{"Y"})
	m.Output("Y", ir.F32, 1<<20, 1<<10)
	add("beyond_hexagon_address_space.onnx", m.Proto(), "the most this target can address")
	return out
}

// TestMalformedModels feeds every malformed model to the CLI: exit status 1, a message naming
// the problem, no panic, bounded time and memory (max RSS under 200 MB).
func TestMalformedModels(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "graphc")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/graphc").CombinedOutput()
	require.NoError(t, err, string(out))
	dir := t.TempDir()
	for name, m := range malformed(t) {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			require.NoError(t, os.WriteFile(p, m.data, 0o644))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			args := []string{p, "-o", os.DevNull}
			if strings.Contains(name, "hexagon") {
				args = append(args, "--target=hexagon")
			}
			cmd := exec.CommandContext(ctx, bin, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			err := cmd.Run()
			require.NotErrorIs(t, ctx.Err(), context.DeadlineExceeded, "took too long")
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
			require.Less(t, rss, int64(200<<10), "max RSS %d KiB", rss)
			msg := stderr.String()
			require.NotContains(t, msg, "goroutine", "no panic")
			if m.want == "" { // valid after all: compiling it is fine
				return
			}
			require.Error(t, err, "a malformed model must fail")
			require.Equal(t, 1, cmd.ProcessState.ExitCode(), msg)
			require.Contains(t, msg, name)
			if m.want != "junk" {
				require.Contains(t, msg, m.want)
			}
		})
	}
}

// TestDeepChain compiles a 100,000-op chain: nothing may recurse per op.
func TestDeepChain(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	m := onnxgen.Chain(100000)
	p := filepath.Join(t.TempDir(), "chain.onnx")
	require.NoError(t, m.Write(p))
	bin := filepath.Join(t.TempDir(), "graphc")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/graphc").CombinedOutput()
	require.NoError(t, err, string(out))
	cmd := exec.Command(bin, p, "--pipeline=", "--emit=ir", "-o", os.DevNull)
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, string(out))
}
