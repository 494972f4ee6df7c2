// This file holds the errors importers return: the format's sentinels and NodeError.

package importer

import "fmt"

// Errors are a format's sentinel errors: Invalid is wrapped by errors about malformed models,
// Unsupported by errors about valid models graphc cannot handle. Each format keeps its own
// (onnx.ErrInvalid says "invalid model", tf.ErrInvalid "invalid graph") so that callers test
// them with errors.Is against the package they called; the kit wraps whichever it is given.
type Errors struct {
	Invalid, Unsupported error
}

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
