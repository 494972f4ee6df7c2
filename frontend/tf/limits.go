// This file checks a decoded GraphDef against the importer's limits before anything is built
// from it: node count and string lengths (tensor sizes are checked where they are declared).

package tf

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/tfpb"
)

// checkGraphLimits checks the node count and the length of every name, input and string
// attribute.
func checkGraphLimits(gd *tfpb.GraphDef, lim ir.Limits) error {
	l := kit.GraphLimits{Limits: lim, Invalid: ErrInvalid}
	if err := l.Nodes(len(gd.Node)); err != nil {
		return err
	}
	for _, n := range gd.Node {
		if err := l.String("node name", n.Name); err != nil {
			return err
		}
		what := kit.NodePrefix(n.Name)
		if err := l.String(what+"op name", n.Op); err != nil {
			return err
		}
		if err := l.Strings(what+"input name", n.Input...); err != nil {
			return err
		}
		for k, a := range n.Attr {
			if err := l.String(what+"attribute name", k); err != nil {
				return err
			}
			if err := l.String(what+"attribute "+k, string(a.GetS())); err != nil {
				return err
			}
			for _, s := range a.GetList().GetS() {
				if err := l.String(what+"attribute "+k, string(s)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
