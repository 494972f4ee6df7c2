package tf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/tf"
	"github.com/graphc/graphc/ir"
)

// TestLimitsAdjustable: each limit rejects the graph just below what it declares, accepts it at
// exactly that size, and the error names the limit.
func TestLimitsAdjustable(t *testing.T) {
	text := `node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 8 } dim { size: 1 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 16 } } float_val: 1 } } } }
node { name: "sum" op: "AddV2" input: "x" input: "w" attr { key: "_note" value { s: "twelve bytes" } } }
`
	_, err := parseText(t, text)
	require.NoError(t, err)
	cases := []struct {
		name      string
		ok, below ir.Limits
		want      string
	}{
		{"nodes", ir.Limits{MaxNodes: 3}, ir.Limits{MaxNodes: 2}, "3 nodes"},
		{"constant", ir.Limits{MaxConstantElements: 16}, ir.Limits{MaxConstantElements: 15}, `node "w"`},
		{"tensor", ir.Limits{MaxTensorElements: 128}, ir.Limits{MaxTensorElements: 127}, `node "sum"`},
		{"string", ir.Limits{MaxStringBytes: 12}, ir.Limits{MaxStringBytes: 11}, "attribute _note of 12 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseText(t, text, tf.WithLimits(c.ok))
			require.NoError(t, err)
			_, err = parseText(t, text, tf.WithLimits(c.below))
			require.ErrorIs(t, err, ir.ErrLimit)
			require.ErrorContains(t, err, c.want)
		})
	}
}
