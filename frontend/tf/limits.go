// This file checks a decoded GraphDef against the importer's limits before anything is built
// from it: node count and string lengths (tensor sizes are checked where they are declared).

package tf

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

// checkGraphLimits checks the node count and the length of every name, input and string
// attribute.
func checkGraphLimits(gd *tfpb.GraphDef, l ir.Limits) error {
	if len(gd.Node) > l.MaxNodes {
		return fmt.Errorf("%w: %w: %d nodes (at most %d)", ErrInvalid, ir.ErrLimit, len(gd.Node), l.MaxNodes)
	}
	str := func(what, s string) error {
		if len(s) > l.MaxStringBytes {
			return fmt.Errorf("%w: %w: %s of %d bytes (at most %d)", ErrInvalid, ir.ErrLimit, what, len(s), l.MaxStringBytes)
		}
		return nil
	}
	for _, n := range gd.Node {
		if err := str("node name", n.Name); err != nil {
			return err
		}
		what := fmt.Sprintf("node %.64q: ", n.Name)
		if err := str(what+"op name", n.Op); err != nil {
			return err
		}
		for _, in := range n.Input {
			if err := str(what+"input name", in); err != nil {
				return err
			}
		}
		for k, a := range n.Attr {
			if err := str(what+"attribute name", k); err != nil {
				return err
			}
			if err := str(what+"attribute "+k, string(a.GetS())); err != nil {
				return err
			}
			for _, s := range a.GetList().GetS() {
				if err := str(what+"attribute "+k, string(s)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
