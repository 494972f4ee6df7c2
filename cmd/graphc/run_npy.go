// This file reads and writes NumPy .npy files (format versions 1 to 3, little-endian,
// C order), the input and output files of graphc run.

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
)

// npyDescr maps graphc element types to NumPy type descriptors. bfloat16, the float8 and
// float4 types have none: their outputs are written as float32 values.
var npyDescr = map[ir.DType]string{ir.F64: "<f8", ir.F32: "<f4", ir.F16: "<f2", ir.I64: "<i8", ir.I32: "<i4", ir.I16: "<i2",
	ir.I8: "|i1", ir.U8: "|u1", ir.U16: "<u2", ir.U32: "<u4", ir.U64: "<u8", ir.Bool: "|b1"}

// npyArray is a parsed .npy file.
type npyArray struct {
	descr string
	shape []int64
	data  []byte
}

var npyMagic = []byte("\x93NUMPY")

// maxNpyHeader bounds the header of a .npy file (NumPy writes a few hundred bytes).
const maxNpyHeader = 1 << 16

// readNpy reads the .npy file at path, checking that its data is as long as its header says
// before returning it.
func readNpy(path string) (*npyArray, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pre := make([]byte, 10)
	if _, err := io.ReadFull(f, pre); err != nil || !bytes.Equal(pre[:6], npyMagic) {
		return nil, fmt.Errorf("%s: not a .npy file (no \\x93NUMPY magic)", path)
	}
	var hlen int64
	var off int64
	switch pre[6] {
	case 1:
		hlen, off = int64(binary.LittleEndian.Uint16(pre[8:10])), 10
	case 2, 3:
		var b [2]byte
		if _, err := io.ReadFull(f, b[:]); err != nil {
			return nil, fmt.Errorf("%s: truncated header", path)
		}
		hlen, off = int64(binary.LittleEndian.Uint32(append(pre[8:10:10], b[:]...))), 12
	default:
		return nil, fmt.Errorf("%s: .npy format version %d.%d is not supported (1 to 3 are)", path, pre[6], pre[7])
	}
	if hlen > maxNpyHeader || off+hlen > st.Size() {
		return nil, fmt.Errorf("%s: truncated or corrupt header (%d bytes announced, the file has %d)", path, hlen, st.Size())
	}
	hdr := make([]byte, hlen)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return nil, fmt.Errorf("%s: truncated header", path)
	}
	a, err := parseNpyHeader(string(hdr))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	size := npyItemSize(a.descr)
	if size == 0 {
		return nil, fmt.Errorf("%s: unsupported dtype %q (little-endian bool, int, uint and float arrays are)", path, a.descr)
	}
	n := int64(1)
	for _, d := range a.shape {
		if d < 0 || d > 0 && n > (1<<50)/d {
			return nil, fmt.Errorf("%s: bad shape %v", path, a.shape)
		}
		n *= d
	}
	want := n * size
	if have := st.Size() - off - hlen; have != want {
		what := "truncated"
		if have > want {
			what = "trailing bytes"
		}
		return nil, fmt.Errorf("%s: %s: shape %v of %s needs %d data bytes, the file has %d", path, what, a.shape, a.descr, want, have)
	}
	a.data = make([]byte, want)
	if _, err := io.ReadFull(f, a.data); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

var (
	npyDescrRe   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	npyFortranRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	npyShapeRe   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// parseNpyHeader reads the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }.
func parseNpyHeader(h string) (*npyArray, error) {
	d, fo, sh := npyDescrRe.FindStringSubmatch(h), npyFortranRe.FindStringSubmatch(h), npyShapeRe.FindStringSubmatch(h)
	if d == nil || fo == nil || sh == nil {
		return nil, fmt.Errorf("malformed .npy header %q", strings.TrimSpace(h))
	}
	if fo[1] == "True" {
		return nil, fmt.Errorf("a Fortran-order array (save it with numpy.ascontiguousarray)")
	}
	a := &npyArray{descr: d[1], shape: []int64{}}
	for _, p := range strings.Split(sh[1], ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSuffix(p, "L"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("malformed shape (%s) in the .npy header", sh[1])
		}
		a.shape = append(a.shape, v)
	}
	return a, nil
}

// npyItemSize returns the element size of a little-endian (or byte-sized) descriptor, 0 for
// others.
func npyItemSize(descr string) int64 {
	if len(descr) < 3 || descr[0] != '<' && descr[0] != '|' && descr[0] != '=' {
		return 0
	}
	switch descr[1] {
	case 'f', 'i', 'u', 'b':
	default:
		return 0
	}
	n, err := strconv.Atoi(descr[2:])
	if err != nil || n <= 0 || n > 8 {
		return 0
	}
	return int64(n)
}

// npyDType returns the graphc element type of a descriptor.
func npyDType(descr string) (ir.DType, bool) {
	norm := descr
	if len(norm) > 0 && (norm[0] == '=' || norm[0] == '|') {
		norm = "<" + norm[1:]
	}
	for t, d := range npyDescr {
		if d == descr || "<"+d[1:] == norm {
			return t, true
		}
	}
	return ir.Invalid, false
}

// tensorFromNpy converts an array to a tensor of element type want: the same type, or for
// bfloat16, float8 and float4 inputs (NumPy has no such type) float32 or float64 values
// rounded to it.
func tensorFromNpy(a *npyArray, want ir.DType) (*modelrt.Tensor, error) {
	have, ok := npyDType(a.descr)
	if !ok {
		return nil, fmt.Errorf("NumPy dtype %q has no graphc element type", a.descr)
	}
	if have == want {
		return modelrt.FromBytes(want, a.shape, a.data), nil
	}
	if want.IsMiniFloat() && (have == ir.F32 || have == ir.F64) {
		src, err := ir.TensorFromBytes(have, a.shape, a.data)
		if err != nil {
			return nil, err
		}
		dst := ir.NewTensor(want, a.shape)
		for i := range dst.F {
			dst.F[i] = ir.RoundFloat(want, src.F[i])
		}
		return modelrt.FromIR(dst), nil
	}
	return nil, fmt.Errorf("the array is %s (%s), the model takes %s", have, a.descr, want)
}

// writeNpy writes t to path as a version 1 .npy file; bfloat16, float8 and float4 tensors
// are written as float32 values.
func writeNpy(path string, t *modelrt.Tensor) error {
	descr, ok := npyDescr[t.DType]
	data := t.Bytes()
	if !ok {
		vals, err := t.Float64s()
		if err != nil {
			return err
		}
		f := ir.NewTensor(ir.F32, t.Shape)
		copy(f.F, vals)
		descr, data = "<f4", f.Bytes()
	}
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		dims[i] = strconv.FormatInt(d, 10)
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, shape)
	// pad with spaces so that the data starts at a multiple of 64 bytes, ending with a newline
	pad := 64 - (10+len(hdr)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr += strings.Repeat(" ", pad) + "\n"
	var buf bytes.Buffer
	buf.Write(npyMagic)
	buf.Write([]byte{1, 0})
	binary.Write(&buf, binary.LittleEndian, uint16(len(hdr)))
	buf.WriteString(hdr)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
