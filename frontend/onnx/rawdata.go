// This file reads a model's weights without copying them: the protobuf runtime copies every
// bytes field it decodes, so a model file would be held twice (the file's buffer and the
// decoded raw_data). The initializers' raw_data fields are cut out of the buffer before it is
// decoded and set afterwards as slices of the buffer itself, which the weights' tensors then
// keep (ir.TensorFromRaw): a model of N weight bytes is N bytes in memory, once.

package onnx

import (
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/graphc/graphc/proto/onnxpb"
)

// Field numbers of onnx.proto on the path to an initializer's bytes, or to a Constant node's
// (quantization tools write weights as Constant nodes).
const (
	modelGraphField       = 7 // ModelProto.graph
	graphNodeField        = 1 // GraphProto.node
	graphInitializerField = 5 // GraphProto.initializer
	nodeAttributeField    = 5 // NodeProto.attribute
	attributeTensorField  = 5 // AttributeProto.t
	tensorRawDataField    = 9 // TensorProto.raw_data
)

// unmarshalAliased decodes a ModelProto whose main graph's initializers and node attribute
// tensors have their raw_data alias data (which the caller must then not modify). Anything the
// cut cannot follow falls back to a plain decode.
func unmarshalAliased(data []byte) (*onnxpb.ModelProto, error) {
	stripped, raws, ok := stripRawData(data)
	if !ok {
		return Unmarshal(data)
	}
	m, err := Unmarshal(stripped)
	if err != nil {
		return nil, err
	}
	// the tensors in the order stripGraph met them: the nodes' attribute tensors, then the
	// initializers (repeated fields keep their wire order)
	var ts []*onnxpb.TensorProto
	for _, n := range m.Graph.Node {
		for _, a := range n.Attribute {
			if a.T != nil {
				ts = append(ts, a.T)
			}
		}
	}
	ts = append(ts, m.Graph.Initializer...)
	if len(ts) != len(raws) {
		return Unmarshal(data) // cannot happen for a well-formed buffer
	}
	for i, t := range ts {
		if raws[i] != nil {
			t.RawData = raws[i]
		}
	}
	return m, nil
}

// stripRawData returns the encoding of data without the raw_data of the tensors of its graph
// (nodes' attribute tensors, then initializers), and those raw_data in that order (nil where a
// tensor has none). ok is false when data is not well-formed protobuf wire data (Unmarshal
// then reports it) or has a form the cut does not follow.
func stripRawData(data []byte) (stripped []byte, raws [][]byte, ok bool) {
	return stripNested(data, modelGraphField, stripGraph)
}

// stripGraph cuts the raw_data out of a GraphProto's initializers and its nodes' attribute
// tensors; the raw_data are returned nodes' first, then initializers', each in wire order.
func stripGraph(data []byte) ([]byte, [][]byte, bool) {
	out := make([]byte, 0, len(data)/64+1024)
	var raws, nodeRaws [][]byte
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, nil, false
		}
		switch {
		case num == graphInitializerField && typ == protowire.BytesType:
			tensor, _ := protowire.ConsumeBytes(b[n:])
			t, raw, ok := stripTensor(tensor)
			if !ok {
				return nil, nil, false
			}
			raws = append(raws, raw)
			out = protowire.AppendTag(out, num, typ)
			out = protowire.AppendBytes(out, t)
		case num == graphNodeField && typ == protowire.BytesType:
			node, _ := protowire.ConsumeBytes(b[n:])
			nd, rs, ok := stripNested(node, nodeAttributeField, func(attr []byte) ([]byte, [][]byte, bool) {
				return stripNested(attr, attributeTensorField, func(t []byte) ([]byte, [][]byte, bool) {
					t, raw, ok := stripTensor(t)
					return t, [][]byte{raw}, ok
				})
			})
			if !ok {
				return nil, nil, false
			}
			nodeRaws = append(nodeRaws, rs...)
			out = protowire.AppendTag(out, num, typ)
			out = protowire.AppendBytes(out, nd)
		default:
			out = append(out, b[:n+m]...)
		}
		b = b[n+m:]
	}
	return out, append(nodeRaws, raws...), true
}

// stripNested rewrites the length-delimited fields number field of a message with strip,
// returning what strip cut out, in order. A singular message field met twice (which a decoder
// merges) is not followed: ok is false.
func stripNested(data []byte, field protowire.Number, strip func([]byte) ([]byte, [][]byte, bool)) ([]byte, [][]byte, bool) {
	out := make([]byte, 0, len(data))
	var raws [][]byte
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, nil, false
		}
		if num != field || typ != protowire.BytesType {
			out = append(out, b[:n+m]...)
			b = b[n+m:]
			continue
		}
		v, _ := protowire.ConsumeBytes(b[n:])
		s, rs, ok := strip(v)
		if !ok {
			return nil, nil, false
		}
		raws = append(raws, rs...)
		out = protowire.AppendTag(out, num, typ)
		out = protowire.AppendBytes(out, s)
		b = b[n+m:]
	}
	return out, raws, true
}

// stripTensor cuts raw_data out of a TensorProto, returning it (the last one, as a decoder
// keeps) as a slice of data.
func stripTensor(data []byte) ([]byte, []byte, bool) {
	out := make([]byte, 0, 128)
	var raw []byte
	for b := data; len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, nil, false
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, nil, false
		}
		if num == tensorRawDataField && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			raw = v[:len(v):len(v)] // appending to it must not write into the buffer
			b = b[n+m:]
			continue
		}
		out = append(out, b[:n+m]...)
		b = b[n+m:]
	}
	return out, raw, true
}
