// This file checks a decoded graph against the importer's limits before anything is built from
// it: node count, string lengths, and the declared size of every tensor type.

package onnx

import (
	"fmt"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
)

// checkGraphLimits checks the node count and the length of every name and string attribute.
// Subgraph attributes are not walked: no supported op has one, so a node carrying one is
// rejected by name when it is imported (and protobuf bounds their nesting when decoding).
func (im *importer) checkGraphLimits(gp *onnxpb.GraphProto) error {
	l := im.cfg.limits
	if len(gp.Node) > l.MaxNodes {
		return im.errf("%w: %w: %d nodes (at most %d)", ErrInvalid, ir.ErrLimit, len(gp.Node), l.MaxNodes)
	}
	str := func(what, s string) error {
		if len(s) > l.MaxStringBytes {
			return im.errf("%w: %w: %s of %d bytes (at most %d)", ErrInvalid, ir.ErrLimit, what, len(s), l.MaxStringBytes)
		}
		return nil
	}
	for _, vis := range [][]*onnxpb.ValueInfoProto{gp.Input, gp.Output, gp.ValueInfo} {
		for _, vi := range vis {
			if err := str("value name", vi.GetName()); err != nil {
				return err
			}
		}
	}
	for _, t := range gp.Initializer {
		if err := str("initializer name", t.GetName()); err != nil {
			return err
		}
	}
	for _, n := range gp.Node {
		if err := str("node name", n.GetName()); err != nil {
			return err
		}
		what := fmt.Sprintf("node %.64q: ", n.GetName())
		for _, names := range [][]string{n.Input, n.Output} {
			for _, s := range names {
				if err := str(what+"value name", s); err != nil {
					return err
				}
			}
		}
		for _, a := range n.Attribute {
			if err := str(what+"attribute name", a.GetName()); err != nil {
				return err
			}
			if err := str(what+"attribute "+a.GetName(), string(a.GetS())); err != nil {
				return err
			}
			for _, s := range a.GetStrings() {
				if err := str(what+"attribute "+a.GetName(), string(s)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkOpLimits checks the result types of the ops the node just imported added.
func (im *importer) checkOpLimits(ops []*ir.Op) error {
	for _, op := range ops {
		if err := ir.CheckTypeLimits(op.Result.Type, im.cfg.limits); err != nil {
			return fmt.Errorf("%w: result of %s: %w", ErrInvalid, op.Kind, err)
		}
	}
	return nil
}
