package abi_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/abi"
)

// TestParse: a document round-trips through JSON, and another version is refused by name.
func TestParse(t *testing.T) {
	s := abi.Signature{ABI: abi.Version, Entry: "model", Triple: "x86_64-unknown-linux-gnu", Params: []string{"N"},
		Inputs:  []abi.Arg{{Name: "X", DType: "f32", Shape: []abi.Extent{{P: map[string]int64{"N": 1}}, {C: 3}}}},
		Outputs: []abi.Arg{{Name: "Y", DType: "f32", Shape: []abi.Extent{{F: []abi.FloorTerm{{K: 1, N: abi.Extent{C: 1, P: map[string]int64{"N": 1}}, D: 2}}}}}},
		Weights: &abi.Weights{Bytes: 64, Fingerprint: "0x00000000000000ff"},
		Bounded: []abi.Bounded{{Param: "k", Bound: 4, Output: 1}}}
	text, err := json.Marshal(s)
	require.NoError(t, err)
	back, err := abi.Parse(text)
	require.NoError(t, err)
	require.Equal(t, s, *back)
	require.Equal(t, "floor((N + 1)/2)", back.Outputs[0].Shape[0].String())

	_, err = abi.Parse([]byte(`{"abi": 2}`))
	require.ErrorContains(t, err, "ABI version 2")
	_, err = abi.Parse([]byte(`{"abi": `))
	require.ErrorContains(t, err, "reading the signature")
}

// TestExtentEval: floors round towards minus infinity, and an unbound dim gives no value.
func TestExtentEval(t *testing.T) {
	e := abi.Extent{C: 1, F: []abi.FloorTerm{{K: 2, N: abi.Extent{P: map[string]int64{"N": 1}}, D: 4}}} // 1 + 2·floor(N/4)
	for n, want := range map[int64]int64{-5: -3, -4: -1, 0: 1, 7: 3, 8: 5} {
		v, ok := e.Eval(map[string]int64{"N": n})
		require.True(t, ok)
		require.Equal(t, want, v, "N = %d", n)
	}
	_, ok := e.Eval(nil)
	require.False(t, ok)
}
