package modelrt

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/ir"
)

// sigText is a signature as lower writes it: x: f32[2*N + 1, M], y: i64[floor((N + 1)/2)].
const sigText = `{"abi":1,"entry":"f","triple":"x86_64-unknown-linux-gnu","params":["N","M"],
 "inputs":[{"name":"x","dtype":"f32","shape":[{"c":1,"p":{"N":2}},{"c":0,"p":{"M":1}}]},
           {"name":"b","dtype":"i1","shape":[]}],
 "outputs":[{"name":"y","dtype":"i64","shape":[{"c":0,"f":[{"k":1,"n":{"c":1,"p":{"N":1}},"d":2}]}]}],
 "weights":{"bytes":256,"fingerprint":"0x00000000deadbeef"},"requires":"N <= 16"}`

func TestParseSignatureAndShapes(t *testing.T) {
	s, err := ParseSignature([]byte(sigText))
	require.NoError(t, err)
	assert.Equal(t, []string{"N", "M"}, s.Params)
	assert.Equal(t, ir.Bool, s.Inputs[1].DType)
	assert.Equal(t, &WeightsInfo{Bytes: 256, Fingerprint: 0xdeadbeef}, s.Weights)
	assert.Equal(t, "[2*N + 1, M]", ShapeString(s.Inputs[0].Shape))
	assert.Equal(t, "[floor((N + 1)/2)]", ShapeString(s.Outputs[0].Shape))
	dims, err := s.InferDims([][]int64{{7, 5}, {}})
	require.NoError(t, err)
	assert.Equal(t, map[string]int64{"N": 3, "M": 5}, dims)
	y, err := s.Outputs[0].ShapeFor(dims)
	require.NoError(t, err)
	assert.Equal(t, []int64{2}, y)
	_, err = s.InferDims([][]int64{{6, 5}, {}})
	assert.ErrorContains(t, err, `input "x" dim 0: extent 6 is not 2*N + 1 for any integer N`)
	_, err = s.InferDims([][]int64{nil, {}})
	assert.ErrorContains(t, err, "symbolic dim N cannot be inferred from the input shapes")
	// floor rounds down for negative numerators too
	e := Extent{F: []FloorTerm{{K: 1, N: Extent{C: -3}, D: 2}}}
	v, ok := e.Eval(nil)
	assert.True(t, ok)
	assert.Equal(t, int64(-2), v)
}

func TestParseSignatureErrors(t *testing.T) {
	for text, want := range map[string]string{
		`not json`:  "reading the signature",
		`{"abi":2}`: "ABI version 2",
		`{"abi":1,"inputs":[{"name":"x","dtype":"f33","shape":[]}]}`: `unknown element type "f33"`,
		`{"abi":1,"weights":{"bytes":1,"fingerprint":"zz"}}`:         "weights fingerprint",
	} {
		_, err := ParseSignature([]byte(text))
		assert.ErrorContains(t, err, want, text)
	}
}

// FuzzParseSignature: any text is a signature or an error, and a parsed signature's shapes
// evaluate without panicking.
func FuzzParseSignature(f *testing.F) {
	f.Add([]byte(sigText))
	f.Add([]byte(`{"abi":1,"params":["N"],"inputs":[{"name":"x","dtype":"f32","shape":[{"c":0,"f":[{"k":1,"n":{"c":0},"d":0}]}]}]}`))
	f.Fuzz(func(t *testing.T, text []byte) {
		s, err := ParseSignature(text)
		if err != nil {
			return
		}
		shapes := make([][]int64, len(s.Inputs))
		for i, in := range s.Inputs {
			shapes[i] = make([]int64, len(in.Shape))
			for d := range shapes[i] {
				shapes[i][d] = int64(3 + d)
			}
		}
		if dims, err := s.InferDims(shapes); err == nil {
			for _, o := range s.Outputs {
				_, _ = o.ShapeFor(dims)
			}
		}
	})
}
