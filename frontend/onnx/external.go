// This file loads tensors whose data lives outside the model (TensorProto.data_location =
// EXTERNAL): the file named by the "location" entry, relative to the model's directory, read at
// "offset" for "length" bytes, with every bound checked before anything is allocated.

package onnx

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// externalTensor reads the data of tp from the file its external_data names.
func (im *importer) externalTensor(tp *onnxpb.TensorProto) (*ir.Tensor, error) {
	entries := map[string]string{}
	for _, kv := range tp.ExternalData {
		entries[kv.GetKey()] = kv.GetValue()
	}
	loc := entries["location"]
	if loc == "" {
		return nil, fmt.Errorf("%w: tensor %q stores its data externally but names no location", ErrInvalid, tp.GetName())
	}
	// the location is relative to the model and may not leave its directory
	clean := filepath.Clean(filepath.FromSlash(loc))
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return nil, fmt.Errorf("%w: tensor %q: external data location %q is not inside the model's directory", ErrInvalid, tp.GetName(), loc)
	}
	offset, length := int64(0), int64(-1)
	for key, p := range map[string]*int64{"offset": &offset, "length": &length} {
		if s, ok := entries[key]; ok {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%w: tensor %q: external data %s %q is not a non-negative integer", ErrInvalid, tp.GetName(), key, s)
			}
			*p = v
		}
	}
	path := filepath.Join(im.dir, clean)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: tensor %q stores its data in %q, which is not beside the model (looked for %s)", ErrInvalid, tp.GetName(), loc, path)
	}
	if err != nil {
		return nil, fmt.Errorf("tensor %q: external data: %w", tp.GetName(), err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("tensor %q: external data: %w", tp.GetName(), err)
	}
	size := st.Size()
	if offset > size {
		return nil, fmt.Errorf("%w: tensor %q: external data offset %d is past the end of %q (%d bytes)", ErrInvalid, tp.GetName(), offset, loc, size)
	}
	if length < 0 {
		length = size - offset
	}
	if length > size-offset {
		return nil, fmt.Errorf("%w: tensor %q: external data [%d, %d) is past the end of %q (%d bytes)", ErrInvalid, tp.GetName(), offset, offset+length, loc, size)
	}
	if want, err := expectedBytes(tp, im.cfg.Limits.MaxConstantElements); err != nil {
		return nil, err
	} else if length != want {
		return nil, fmt.Errorf("%w: tensor %q: external data has %d bytes, its shape needs %d", ErrInvalid, tp.GetName(), length, want)
	}
	raw := make([]byte, length)
	if _, err := f.ReadAt(raw, offset); err != nil && !(errors.Is(err, io.EOF) && length == 0) {
		return nil, fmt.Errorf("tensor %q: reading external data from %q: %w", tp.GetName(), loc, err)
	}
	local := proto.Clone(tp).(*onnxpb.TensorProto)
	local.ExternalData = nil
	local.DataLocation = onnxpb.TensorProto_DEFAULT.Enum()
	local.RawData = raw
	return tensorFromProto(local, im.cfg.Limits.MaxConstantElements)
}

// expectedBytes returns the size of tp's data in raw form.
func expectedBytes(tp *onnxpb.TensorProto, maxElems int64) (int64, error) {
	elem, err := DType(tp.GetDataType())
	if err != nil {
		return 0, fmt.Errorf("tensor %q: %w", tp.GetName(), err)
	}
	n := int64(elem.Size())
	for _, d := range tp.Dims {
		if d < 0 {
			return 0, fmt.Errorf("%w: tensor %q: negative dimension %d", ErrInvalid, tp.GetName(), d)
		}
		if d > 0 && n > maxElems*8/d {
			return 0, fmt.Errorf("%w: tensor %q: shape %v is too large", ErrInvalid, tp.GetName(), tp.Dims)
		}
		n *= d
	}
	return n, nil
}
