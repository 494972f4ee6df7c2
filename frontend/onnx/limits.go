// This file checks a decoded graph against the importer's limits before anything is built from
// it: node count, string lengths, and the declared size of every tensor type.

package onnx

import (
	kit "github.com/graphc/graphc/frontend/importer"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// checkGraphLimits checks the node count and the length of every name and string attribute.
// Subgraph attributes are not walked: no supported op has one, so a node carrying one is
// rejected by name when it is imported (and protobuf bounds their nesting when decoding).
func (im *importer) checkGraphLimits(gp *onnxpb.GraphProto) error {
	if err := im.graphLimits(gp); err != nil {
		return im.errf("%w", err)
	}
	return nil
}

func (im *importer) graphLimits(gp *onnxpb.GraphProto) error {
	l := kit.GraphLimits{Limits: im.cfg.Limits, Invalid: ErrInvalid}
	if err := l.Nodes(len(gp.Node)); err != nil {
		return err
	}
	for _, vis := range [][]*onnxpb.ValueInfoProto{gp.Input, gp.Output, gp.ValueInfo} {
		for _, vi := range vis {
			if err := l.String("value name", vi.GetName()); err != nil {
				return err
			}
		}
	}
	for _, t := range gp.Initializer {
		if err := l.String("initializer name", t.GetName()); err != nil {
			return err
		}
	}
	for _, n := range gp.Node {
		if err := l.String("node name", n.GetName()); err != nil {
			return err
		}
		what := kit.NodePrefix(n.GetName())
		if err := l.Strings(what+"value name", append(append([]string(nil), n.Input...), n.Output...)...); err != nil {
			return err
		}
		for _, a := range n.Attribute {
			if err := l.String(what+"attribute name", a.GetName()); err != nil {
				return err
			}
			if err := l.String(what+"attribute "+a.GetName(), string(a.GetS())); err != nil {
				return err
			}
			for _, s := range a.GetStrings() {
				if err := l.String(what+"attribute "+a.GetName(), string(s)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkOpLimits checks the result types of the ops the node just imported added.
func (im *importer) checkOpLimits(ops []*ir.Op) error {
	return kit.CheckResults(ops, im.cfg.Limits, ErrInvalid)
}
