// This file reads ModelProto files and imports them.

package onnx

import (
	"fmt"
	"io"
	"path/filepath"

	"google.golang.org/protobuf/proto"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// Option configures the importer.
type Option func(*config)

type config struct {
	kit.Config
	constInputs map[string]*ir.Tensor // graph inputs bound to data (WithConstInput)
	// initInputs makes initializers that are also graph inputs runtime inputs.
	initInputs bool
	// floatQDQ keeps QDQ groups in float (WithoutQDQFusion).
	floatQDQ bool
}

// WithDim binds the symbolic dimension name to v at import.
func WithDim(name string, v int64) Option { return func(c *config) { c.Dims[name] = v } }

// WithMaxFileSize bounds the size of the model file read (default 2 GiB, protobuf's own limit).
func WithMaxFileSize(n int64) Option { return func(c *config) { c.Limits.MaxFileBytes = n } }

// WithLimits sets the limits on what the model may declare (file size, node count, constant and
// tensor sizes, string lengths); zero fields keep their defaults (see ir.Limits).
func WithLimits(l ir.Limits) Option {
	return func(c *config) { c.SetLimits(l) }
}

// WithInitializerInputs makes the initializers that the model also lists as graph inputs
// runtime inputs (ONNX's "default values the caller may override"); by default they are
// constants.
func WithInitializerInputs() Option { return func(c *config) { c.initInputs = true } }

// WithoutQDQFusion imports DequantizeLinear → Conv/MatMul/Gemm → QuantizeLinear as written
// (float contractions between quantize and dequantize ops) instead of integer kernels
// (qdq.go).
func WithoutQDQFusion() Option { return func(c *config) { c.floatQDQ = true } }

func newConfig(opts []Option) *config { return kit.Configure(&config{Config: kit.NewConfig()}, opts) }

// Load reads and imports the ONNX model at path.
func Load(path string, opts ...Option) (*ir.Graph, error) {
	cfg := newConfig(opts)
	m, err := kit.Decode(path, cfg.Limits, ErrInvalid, unmarshalAliased) // the weights stay in the file's bytes, not copied
	if err != nil {
		return nil, err
	}
	return importModel(m, path, filepath.Dir(path), cfg)
}

// Unmarshal decodes a ModelProto.
func Unmarshal(data []byte) (*onnxpb.ModelProto, error) {
	m := &onnxpb.ModelProto{}
	if err := proto.Unmarshal(data, m); err != nil {
		return nil, fmt.Errorf("%w: not an ONNX model: %v", ErrInvalid, err)
	}
	if m.Graph == nil {
		return nil, fmt.Errorf("%w: not an ONNX model: no graph", ErrInvalid)
	}
	return m, nil
}

// Read imports a model from r; name is used in error messages and to find external data.
func Read(r io.Reader, name string, opts ...Option) (*ir.Graph, error) {
	cfg := newConfig(opts)
	data, err := kit.ReadAll(r, name, cfg.Limits, ErrInvalid)
	if err != nil {
		return nil, err
	}
	m, err := unmarshalAliased(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return importModel(m, name, filepath.Dir(name), cfg)
}

// Import converts a decoded model.
func Import(m *onnxpb.ModelProto, name string, opts ...Option) (*ir.Graph, error) {
	return importModel(m, name, filepath.Dir(name), newConfig(opts))
}
