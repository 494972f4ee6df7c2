// This file reads GraphDef files (binary or text) and imports them.

package tf

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

// ErrUnsupported is wrapped by errors about valid graphs that graphc cannot handle.
var ErrUnsupported = errors.New("unsupported")

// ErrInvalid is wrapped by errors about malformed graphs.
var ErrInvalid = errors.New("invalid graph")

// Option configures the importer.
type Option func(*config)

type config struct {
	outputs []string
	dims    map[string]int64
	limits  ir.Limits
}

// WithOutputs selects the graph outputs: "name" or "name:port", in order.
func WithOutputs(names ...string) Option {
	return func(c *config) { c.outputs = append(c.outputs, names...) }
}

// WithDim binds a symbolic dimension (named <placeholder>_d<i> for unknown placeholder dims).
func WithDim(name string, v int64) Option { return func(c *config) { c.dims[name] = v } }

// WithMaxFileSize bounds the file size read and the dense size of a splat constant (default 2
// GiB).
func WithMaxFileSize(n int64) Option { return func(c *config) { c.limits.MaxFileBytes = n } }

// WithLimits sets the limits on what the graph may declare (file size, node count, constant
// and tensor sizes, string lengths); zero fields keep their defaults (see ir.Limits).
func WithLimits(l ir.Limits) Option {
	return func(c *config) {
		if l.MaxFileBytes <= 0 {
			l.MaxFileBytes = c.limits.MaxFileBytes
		}
		c.limits = l
	}
}

func newConfig(opts []Option) *config {
	c := &config{dims: map[string]int64{}}
	for _, o := range opts {
		o(c)
	}
	c.limits = c.limits.WithDefaults()
	return c
}

// Load reads and imports the GraphDef at path: .pbtxt (or .pb.txt) is text, anything else binary.
func Load(path string, opts ...Option) (*ir.Graph, error) {
	cfg := newConfig(opts)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, cfg.limits.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > cfg.limits.MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %w: file exceeds the limit of %d bytes", path, ErrInvalid, ir.ErrLimit, cfg.limits.MaxFileBytes)
	}
	gd, err := Unmarshal(data, IsText(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
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
