// This file reads GraphDef files (binary or text) and imports them.

package tf

import (
	"fmt"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

// Option configures the importer.
type Option func(*config)

type config struct {
	kit.Config
	outputs []string
}

// WithOutputs selects the graph outputs: "name" or "name:port", in order.
func WithOutputs(names ...string) Option {
	return func(c *config) { c.outputs = append(c.outputs, names...) }
}

// WithDim binds a symbolic dimension (named <placeholder>_d<i> for unknown placeholder dims).
func WithDim(name string, v int64) Option { return func(c *config) { c.Dims[name] = v } }

// WithMaxFileSize bounds the file size read and the dense size of a splat constant (default 2
// GiB).
func WithMaxFileSize(n int64) Option { return func(c *config) { c.Limits.MaxFileBytes = n } }

// WithLimits sets the limits on what the graph may declare (file size, node count, constant
// and tensor sizes, string lengths); zero fields keep their defaults (see ir.Limits).
func WithLimits(l ir.Limits) Option {
	return func(c *config) { c.SetLimits(l) }
}

func newConfig(opts []Option) *config { return kit.Configure(&config{Config: kit.NewConfig()}, opts) }

// Load reads and imports the GraphDef at path: .pbtxt (or .pb.txt) is text, anything else binary.
func Load(path string, opts ...Option) (*ir.Graph, error) {
	cfg := newConfig(opts)
	gd, err := kit.Decode(path, cfg.Limits, ErrInvalid, func(data []byte) (*tfpb.GraphDef, error) {
		return Unmarshal(data, IsText(path))
	})
	if err != nil {
		return nil, err
	}
	return importGraph(gd, path, cfg)
}

// IsText reports whether path names a text GraphDef.
func IsText(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".pbtxt") || strings.HasSuffix(p, ".pb.txt") || filepath.Ext(p) == ".txt"
}

// Unmarshal decodes a GraphDef in binary or text form.
func Unmarshal(data []byte, text bool) (*tfpb.GraphDef, error) {
	gd := &tfpb.GraphDef{}
	var err error
	if text {
		err = prototext.Unmarshal(data, gd)
	} else {
		err = proto.Unmarshal(data, gd)
	}
	if err != nil {
		kind := "binary"
		if text {
			kind = "text"
		}
		return nil, fmt.Errorf("%w: not a %s TensorFlow GraphDef: %v", ErrInvalid, kind, err)
	}
	if len(gd.Node) == 0 {
		return nil, fmt.Errorf("%w: not a TensorFlow GraphDef: no nodes", ErrInvalid)
	}
	return gd, nil
}

// Import converts a decoded GraphDef; name is used in error messages.
func Import(gd *tfpb.GraphDef, name string, opts ...Option) (*ir.Graph, error) {
	return importGraph(gd, name, newConfig(opts))
}
