// This file holds the errors the importer returns.

package tf

import (
	"errors"

	kit "github.com/graphc/graphc/frontend/importer"
)

// ErrUnsupported is wrapped by errors about valid graphs that graphc cannot handle (the kit's,
// shared by the formats).
var ErrUnsupported = kit.ErrUnsupported

// ErrInvalid is wrapped by errors about malformed graphs.
var ErrInvalid = errors.New("invalid graph")

// NodeError is an import error attached to one node.
type NodeError = kit.NodeError
