// This file holds the errors importers return: ErrUnsupported and NodeError.

package importer

import (
	"errors"
	"fmt"
)

// ErrUnsupported is wrapped by errors about valid models graphc cannot handle, whatever their
// format (onnx.ErrUnsupported and tf.ErrUnsupported are this error). Errors about malformed
// models wrap the format's own ErrInvalid ("invalid model", "invalid graph"), which the kit's
// functions take as an argument.
var ErrUnsupported = errors.New("unsupported")

// NodeError is an import error attached to one node.
type NodeError struct {
	File, Node, Op string
	// Opset is the model's opset of the node's domain (0: the format has no opsets).
	Opset int64
	Err   error
}

func (e *NodeError) Error() string {
	if e.Opset > 0 {
		return fmt.Sprintf("%s: node %q (%s, opset %d): %v", e.File, e.Node, e.Op, e.Opset, e.Err)
	}
	return fmt.Sprintf("%s: node %q (%s): %v", e.File, e.Node, e.Op, e.Err)
}

func (e *NodeError) Unwrap() error { return e.Err }
