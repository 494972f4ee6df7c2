// This file recognises the loop-carried values that a Loop body only grows by concatenation
// (torchvision's res = torch.cat((res, piece)) in a loop over detections, exported as a
// carried value whose initial value is empty): the value after iteration t is the initial
// value followed by the pieces of iterations 0..t. Its type changes from iteration to
// iteration, which a copy of the body selected at run time cannot have; as a scan output the
// pieces are stacked at the iteration bound and cut to the iterations that ran (a bounded dim),
// and the result is the initial value followed by them.

package onnx

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/proto/onnxpb"
	"github.com/graphc/graphc/volume"
)

// accumulator is loop-carried value #carried, grown by concatenation along axis 0; its pieces
// are the rewritten body's scan output #scan.
type accumulator struct {
	carried, scan int
}

// accumulators rewrites body so that every loop-carried value grown only by a Concat along
// axis 0 (its body input used by nothing else) keeps its initial value, the concatenated
// pieces becoming an extra scan output. It returns body itself when none is.
func accumulators(body *onnxpb.GraphProto, carried []*ir.Value) (*onnxpb.GraphProto, []accumulator) {
	n := len(carried)
	uses := map[string]int{}
	for _, nd := range body.Node {
		if hasGraphAttr(nd) {
			return body, nil // a nested graph may read the value: keep the loop as it is
		}
		for _, in := range nd.Input {
			uses[in]++
		}
	}
	producer := map[string]*onnxpb.NodeProto{}
	for _, nd := range body.Node {
		for _, o := range nd.Output {
			producer[o] = nd
		}
	}
	for _, o := range body.Output {
		uses[o.GetName()]++
	}
	var accs []accumulator
	var out *onnxpb.GraphProto
	for i := range n {
		in, res := body.Input[2+i].GetName(), body.Output[1+i].GetName()
		nd := producer[res]
		if nd == nil || nd.GetOpType() != "Concat" || len(nd.Input) < 2 || nd.Input[0] != in || uses[in] != 1 || uses[res] != 1 {
			continue
		}
		axis := int64(0)
		for _, a := range nd.Attribute {
			if a.GetName() == "axis" {
				axis = a.GetI()
			}
		}
		if r := int64(carried[i].Type.Rank()); axis < 0 {
			axis += r
		}
		if axis != 0 || carried[i].Type.Rank() == 0 {
			continue
		}
		if out == nil {
			out = proto.Clone(body).(*onnxpb.GraphProto)
		}
		piece := nd.Input[1]
		if len(nd.Input) > 2 {
			piece = fmt.Sprintf("%s__piece", res)
			out.Node = append(out.Node, &onnxpb.NodeProto{OpType: proto.String("Concat"), Name: proto.String(nd.GetName() + "__piece"),
				Input: append([]string(nil), nd.Input[1:]...), Output: []string{piece}, Attribute: nd.Attribute})
		}
		out.Output[1+i] = &onnxpb.ValueInfoProto{Name: proto.String(in)} // the carried value keeps its initial value
		out.Output = append(out.Output, &onnxpb.ValueInfoProto{Name: proto.String(piece)})
		accs = append(accs, accumulator{carried: i, scan: len(out.Output) - 2 - n})
	}
	if out == nil {
		return body, nil
	}
	return out, accs
}

// accumulated returns the initial value init followed by the stacked pieces [T, p, …] of an
// accumulator: concat(init, reshape(pieces, [T·p, …])) along axis 0.
func (e *emitter) accumulated(name string, init, pieces *ir.Value) (*ir.Value, error) {
	if e.err != nil {
		return nil, e.err
	}
	if pieces.Type.Rank() != init.Type.Rank()+1 {
		return nil, fmt.Errorf("%w: the pieces %s appended to a loop-carried %s have another rank", ErrInvalid, pieces.Type, init.Type)
	}
	p, ok := pieces.Type.Shape[1].IsConst()
	if !ok {
		return nil, fmt.Errorf("%w: the pieces appended to a loop-carried value have a run-time extent %s", ErrUnsupported, pieces.Type.Shape[1].String())
	}
	shape := append([]volume.Aff{pieces.Type.Shape[0].Mul(p)}, pieces.Type.Shape[2:]...)
	flat := e.reshape(pieces, shape...)
	if n, ok := init.Type.Shape[0].IsConst(); ok && n == 0 {
		return e.Op("identity", name, nil, flat), e.err
	}
	return e.Op("concat", name, ir.Attrs{"axis": ir.IntAttr(0)}, init, flat), e.err
}
