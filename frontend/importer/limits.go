// This file checks a decoded graph against the limits before anything is built from it (node
// count, string lengths), and the result types of the ops a node adds.

package importer

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

// GraphLimits checks the parts of a decoded graph the formats share: its node count and the
// length of every name and string attribute, reported with the format's Invalid error.
type GraphLimits struct {
	Limits ir.Limits
	// Invalid is the format's ErrInvalid, which limit errors wrap.
	Invalid error
}

// Nodes checks the node count.
func (c GraphLimits) Nodes(n int) error {
	if n > c.Limits.MaxNodes {
		return fmt.Errorf("%w: %w: %d nodes (at most %d)", c.Invalid, ir.ErrLimit, n, c.Limits.MaxNodes)
	}
	return nil
}

// String checks the length of one name or string attribute; what says which ("node name",
// `node "x": attribute note`).
func (c GraphLimits) String(what, s string) error {
	if len(s) > c.Limits.MaxStringBytes {
		return fmt.Errorf("%w: %w: %s of %d bytes (at most %d)", c.Invalid, ir.ErrLimit, what, len(s), c.Limits.MaxStringBytes)
	}
	return nil
}

// Strings checks several strings of one kind.
func (c GraphLimits) Strings(what string, ss ...string) error {
	for _, s := range ss {
		if err := c.String(what, s); err != nil {
			return err
		}
	}
	return nil
}

// NodePrefix returns how a node is named in a limit error ("node \"x\": ", at most 64 bytes).
func NodePrefix(name string) string { return fmt.Sprintf("node %.64q: ", name) }

// CheckResults checks the result types of the ops a node just added against the limits.
func CheckResults(ops []*ir.Op, l ir.Limits, invalid error) error {
	for _, op := range ops {
		if err := ir.CheckTypeLimits(op.Result.Type, l); err != nil {
			return fmt.Errorf("%w: result of %s: %w", invalid, op.Kind, err)
		}
	}
	return nil
}
