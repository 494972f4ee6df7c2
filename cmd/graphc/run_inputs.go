// This file gathers the inputs of graphc run: .npy and ONNX TensorProto (.pb) files, seeded
// random tensors, and the input_*.pb files of an ONNX test data set directory.

package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/frontend/onnx"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
	"github.com/graphc/graphc/proto/onnxpb"
)

// maxTensorFile bounds a .pb tensor file (protobuf's own message limit).
const maxTensorFile = 2 << 30

// readTensorFile reads a .npy or TensorProto .pb file for an argument of element type want.
func readTensorFile(path string, want ir.DType) (*modelrt.Tensor, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		a, err := readNpy(path)
		if err != nil {
			return nil, err
		}
		t, err := tensorFromNpy(a, want)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return t, nil
	case ".pb":
		it, err := readTensorProto(path)
		if err != nil {
			return nil, err
		}
		return modelrt.FromIR(it), nil
	}
	return nil, fmt.Errorf("%s: unknown tensor file type %q (want .npy or .pb, an ONNX TensorProto)", path, filepath.Ext(path))
}

// readTensorProto reads an ONNX TensorProto file (the format of test data sets).
func readTensorProto(path string) (*ir.Tensor, error) {
	t, _, err := readNamedTensorProto(path)
	return t, err
}

// readNamedTensorProto reads an ONNX TensorProto file and the name it holds (a test data set's
// files name the graph input or output they are for).
func readNamedTensorProto(path string) (*ir.Tensor, string, error) {
	data, err := readLimitedFile(path, maxTensorFile)
	if err != nil {
		return nil, "", err
	}
	var tp onnxpb.TensorProto
	if err := proto.Unmarshal(data, &tp); err != nil {
		return nil, "", fmt.Errorf("%s: not an ONNX TensorProto: %w", path, err)
	}
	t, err := onnx.TensorFromProto(&tp)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return t, tp.GetName(), nil
}

// boundValue returns the value of the ONNX graph input name for binding it at compile time:
// from --input NAME=FILE, else from the test data set's input file of that name (nil when
// neither gives it).
func boundValue(name string, ds *dataSet, specs []string) (*ir.Tensor, string, error) {
	for _, spec := range specs {
		n, file, ok := strings.Cut(spec, "=")
		if !ok || n != name || file == "random" {
			continue
		}
		if strings.EqualFold(filepath.Ext(file), ".npy") {
			a, err := readNpy(file)
			if err != nil {
				return nil, "", err
			}
			dt, ok := npyDType(a.descr)
			if !ok {
				return nil, "", fmt.Errorf("%s: NumPy dtype %q has no graphc element type", file, a.descr)
			}
			t, err := ir.TensorFromBytes(dt, a.shape, a.data)
			return t, file, err
		}
		t, err := readTensorProto(file)
		return t, file, err
	}
	if ds != nil {
		for _, p := range ds.inputs {
			t, n, err := readNamedTensorProto(p)
			if err != nil {
				return nil, "", err
			}
			if n == name {
				return t, p, nil
			}
		}
	}
	return nil, "", nil
}

func readLimitedFile(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, fmt.Errorf("%s: %d bytes, more than the limit of %d", path, st.Size(), max)
	}
	return os.ReadFile(path)
}

// randomTensor returns a tensor of shape with elements drawn uniformly from [lo, hi) (floats)
// or [lo, hi] (integers, within the type's range; bool: 0 or 1), seeded.
func randomTensor(r *rand.Rand, dt ir.DType, shape []int64, lo, hi float64) *modelrt.Tensor {
	t := ir.NewTensor(dt, shape)
	switch {
	case dt == ir.Bool:
		for i := range t.I {
			t.I[i] = int64(r.IntN(2))
		}
	case dt.IsFloat():
		for i := range t.F {
			t.F[i] = ir.RoundFloat(dt, lo+(hi-lo)*r.Float64())
		}
	default:
		l, h := int64(lo), int64(hi)
		if h < l {
			h = l
		}
		for i := range t.I {
			t.I[i] = dt.WrapInt(l + r.Int64N(h-l+1))
		}
	}
	return modelrt.FromIR(t)
}

// dataSet is the files of an ONNX test data set directory, in index order.
type dataSet struct {
	dir             string
	inputs, outputs []string
}

// readDataSet lists input_<i>.pb and output_<i>.pb in dir.
func readDataSet(dir string) (*dataSet, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	type file struct {
		i    int
		path string
	}
	var ins, outs []file
	for _, e := range ents {
		name := e.Name()
		for prefix, list := range map[string]*[]file{"input_": &ins, "output_": &outs} {
			if rest, ok := strings.CutPrefix(name, prefix); ok && strings.HasSuffix(rest, ".pb") {
				i, err := strconv.Atoi(strings.TrimSuffix(rest, ".pb"))
				if err == nil {
					*list = append(*list, file{i, filepath.Join(dir, name)})
				}
			}
		}
	}
	if len(ins) == 0 && len(outs) == 0 {
		return nil, fmt.Errorf("%s: no input_<i>.pb or output_<i>.pb files: not an ONNX test data set", dir)
	}
	ds := &dataSet{dir: dir}
	for _, l := range []struct {
		files []file
		dst   *[]string
		what  string
	}{{ins, &ds.inputs, "input"}, {outs, &ds.outputs, "output"}} {
		sort.Slice(l.files, func(a, b int) bool { return l.files[a].i < l.files[b].i })
		for k, f := range l.files {
			if f.i != k {
				return nil, fmt.Errorf("%s: %s_%d.pb is missing", dir, l.what, k)
			}
			*l.dst = append(*l.dst, f.path)
		}
	}
	return ds, nil
}

// argIndex finds the argument called name: its exact name, the name with the characters a C
// identifier cannot hold replaced (as graphc names arguments), or in<i> / out<i>.
func argIndex(args []modelrt.Arg, name, prefix string) int {
	for i, a := range args {
		if a.Name == name {
			return i
		}
	}
	for i, a := range args {
		if sanitizeName(a.Name) == sanitizeName(name) {
			return i
		}
	}
	if rest, ok := strings.CutPrefix(name, prefix); ok {
		if i, err := strconv.Atoi(rest); err == nil && i >= 0 && i < len(args) {
			return i
		}
	}
	return -1
}

func sanitizeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, s)
}

// argNames lists the arguments as NAME: dtype[shape].
func argNames(args []modelrt.Arg) string {
	var out []string
	for _, a := range args {
		out = append(out, fmt.Sprintf("%s: %s%s", a.Name, a.DType, modelrt.ShapeString(a.Shape)))
	}
	return strings.Join(out, ", ")
}
