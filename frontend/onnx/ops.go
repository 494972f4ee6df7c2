// This file holds the op table: every ONNX op the importer supports, with its opset range.

package onnx

import (
	"github.com/graphc/graphc/ir"
)

type opDef struct {
	Since  int // first opset whose semantics the importer implements
	Import func(c *nodeCtx) error
}

// opTable maps ONNX op types to their importers. Each family of ops registers its entries
// from its own file (ops_<family>.go) with registerOp.
var opTable = map[string]opDef{}

// previewOps lists the ops of other domains the importer supports (ai.onnx.preview's
// FlexAttention), by domain.
var previewOps = map[string]map[string]bool{}

// SupportsOp reports whether the importer handles op type op of the given domain ("" or
// "ai.onnx" for the default one).
func SupportsOp(domain, op string) bool {
	if domain == "" || domain == "ai.onnx" {
		_, ok := opTable[op]
		return ok
	}
	if _, ok := lookupDomainOp(domain, op); ok {
		return true
	}
	return previewOps[domain][op]
}

func registerOp(name string, since int, fn func(c *nodeCtx) error) {
	if _, dup := opTable[name]; dup {
		panic("onnx: op " + name + " registered twice")
	}
	opTable[name] = opDef{Since: since, Import: fn}
}

// elementwise maps a node to one catalogue op over all its inputs.
func elementwise(kind string) func(c *nodeCtx) error {
	return func(c *nodeCtx) error {
		var ins []*ir.Value
		for i := 0; i < c.NumInputs(); i++ {
			v, err := c.Input(i)
			if err != nil {
				return err
			}
			ins = append(ins, v)
		}
		v, err := c.Emit(kind, ins, nil, c.Output(0))
		if err != nil {
			return err
		}
		c.SetOutput(0, v)
		return nil
	}
}
