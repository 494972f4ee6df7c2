// This file converts any op into the generic op that spells out its form, so that passes can
// rewrite accesses and bodies (fusion) and still print, parse and verify the result.

package ir

import (
	"fmt"

	"github.com/graphc/graphc/volume"
)

// AccessString prints an access in the notation of the generic op's "access" attribute: an
// isl map whose pieces are the access pieces, in order.
func AccessString(params, dims []string, a Access) string {
	if a.Approx {
		return a.ApproxMap.String()
	}
	var parts []string
	for _, p := range a.Pieces {
		m := volume.MultiAff{Params: params, InDims: dims, Exprs: p.Index}.Map()
		if len(p.Guard) > 0 {
			m = m.IntersectDomain(volume.SetFromConstraints(params, "", dims, p.Guard))
		}
		s := m.String()
		parts = append(parts, s)
	}
	if len(parts) == 1 {
		return parts[0]
	}
	// join the pieces of several maps into one union, keeping their order
	out := ""
	prefix := ""
	for _, s := range parts {
		body := s
		if i := indexOf(s, "{"); i >= 0 {
			if prefix == "" {
				prefix = s[:i]
			}
			body = s[i+1 : len(s)-1]
		}
		if out != "" {
			out += ";"
		}
		out += body
	}
	return prefix + "{" + out + "}"
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// ToGeneric returns a generic op with the same form as op (same operands, domain, accesses,
// body, reduction, init and result type), for passes that rewrite the form. Data-dependent
// (approximated) accesses cannot be spelled out and are refused.
func ToGeneric(params []string, op *Op) (*Op, error) {
	its := make([]string, len(op.Iters))
	for i, k := range op.Iters {
		its[i] = k.String()
	}
	var accs []string
	for k, a := range op.Access {
		if a.Approx {
			return nil, fmt.Errorf("operand #%d of %s has a data-dependent access", k, op.Kind)
		}
		accs = append(accs, AccessString(params, op.Dims, a))
	}
	full := op.Full.SetDimNames(op.Dims)
	attrs := Attrs{
		"type":      StringAttr(op.Result.Type.String()),
		"domain":    StringAttr(full.String()),
		"access":    StringsAttr(accs...),
		"out":       StringAttr(AccessString(params, op.Dims, op.Out)),
		"body":      StringAttr(op.Body.String()),
		"iterators": StringsAttr(its...),
		"reduce":    StringAttr(op.Reduce.String()),
		"init":      FloatAttr(op.Init),
		"argdim":    IntAttr(int64(op.ArgDim)),
	}
	if len(op.Requires) > 0 {
		req := make([]string, len(op.Requires))
		for i, c := range op.Requires {
			req[i] = RequirementString(c)
		}
		attrs["requires"] = StringsAttr(req...)
	}
	g, err := MakeOp(params, "generic", op.Name, op.Operands, attrs)
	if err != nil {
		return nil, fmt.Errorf("%s as a generic op: %w", op.Kind, err)
	}
	if !g.Result.Type.Equal(op.Result.Type) {
		return nil, fmt.Errorf("%s as a generic op yields %s, not %s", op.Kind, g.Result.Type, op.Result.Type)
	}
	g.Domain = op.Domain.SetDimNames(g.Dims)
	return g, nil
}
