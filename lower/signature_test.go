package lower_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/abi"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/lower"
)

// TestSignature: Config.Signature adds ENTRY_signature, whose string is the entry's ABI as
// JSON (the shapes as affine extents over the dims), declares it in the header, and leaves
// the module otherwise as it was; without it nothing changes.
func TestSignature(t *testing.T) {
	src := `graph @g[N](%x: f32[N, 3], %k: i8[4]) {
  %c = concat(%x, %x) {axis = 0} : f32[2*N, 3]
  %s = cast(%k) {to = "i1"} : i1[4]
  return %c, %s
}
`
	g, err := ir.Parse(src)
	require.NoError(t, err)
	plain, err := lower.Lower(context.Background(), g, lower.Config{})
	require.NoError(t, err)
	g2, err := ir.Parse(src)
	require.NoError(t, err)
	mod, err := lower.Lower(context.Background(), g2, lower.Config{Signature: true, Entry: "net"})
	require.NoError(t, err)
	assert.NotContains(t, plain.String(), "_signature")
	assert.NotContains(t, plain.Header, "_signature")
	text := mod.String()
	verifyModule(t, text, "")
	require.Contains(t, text, "define i8* @net_signature()")
	assert.Contains(t, mod.Header, "const char *net_signature(void);")

	js, err := lower.SignatureJSON(mod.Entries[0], mod.Target, false)
	require.NoError(t, err)
	// the module holds the same JSON, NUL-terminated, in its private constant
	quoted := strings.NewReplacer(`"`, `\22`).Replace(string(js))
	assert.Contains(t, text, `c"`+quoted+`\00"`)
	var sig abi.Signature
	require.NoError(t, json.Unmarshal(js, &sig))
	assert.Equal(t, abi.Version, sig.ABI)
	assert.Equal(t, "net", sig.Entry)
	assert.Equal(t, []string{"N"}, sig.Params)
	require.Len(t, sig.Inputs, 2)
	assert.Equal(t, "x", sig.Inputs[0].Name)
	assert.Equal(t, "f32", sig.Inputs[0].DType)
	assert.Equal(t, []abi.Extent{{P: map[string]int64{"N": 1}}, {C: 3}}, sig.Inputs[0].Shape)
	assert.Equal(t, []abi.Extent{{P: map[string]int64{"N": 2}}, {C: 3}}, sig.Outputs[0].Shape)
	assert.Equal(t, "i1", sig.Outputs[1].DType)
	assert.Nil(t, sig.Weights)

	// with the weights outside the module, the signature names their size and fingerprint
	g3, err := ir.Parse(`graph @w(%x: f32[2, 2]) {
  %c = constant dense<[1.0, 2.0, 3.0, 4.0]> : f32[2, 2]
  %y = matmul(%x, %c) : f32[2, 2]
  return %y
}
`)
	require.NoError(t, err)
	wmod, err := lower.Lower(context.Background(), g3, lower.Config{Signature: true, ExternalWeights: true})
	require.NoError(t, err)
	js, err = lower.SignatureJSON(wmod.Entries[0], wmod.Target, false)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(js, &sig))
	require.NotNil(t, sig.Weights)
	w := wmod.Entries[0].Weights
	assert.Equal(t, w.Size, sig.Weights.Bytes)
	assert.Equal(t, strings.ToLower(sig.Weights.Fingerprint), sig.Weights.Fingerprint)
	assert.Contains(t, wmod.String(), "define i8* @main_graph_signature()")
}
