package tf_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/frontend/importer/importertest"
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
	importertest.CheckLimits(t, func(l ir.Limits) error {
		_, err := parseText(t, text, tf.WithLimits(l))
		return err
	}, tf.ErrInvalid, "test.pbtxt", []importertest.LimitCase{
		{Name: "nodes", OK: ir.Limits{MaxNodes: 3}, Below: ir.Limits{MaxNodes: 2}, Want: "3 nodes"},
		{Name: "constant", OK: ir.Limits{MaxConstantElements: 16}, Below: ir.Limits{MaxConstantElements: 15}, Want: `node "w"`},
		{Name: "tensor", OK: ir.Limits{MaxTensorElements: 128}, Below: ir.Limits{MaxTensorElements: 127}, Want: `node "sum"`},
		{Name: "string", OK: ir.Limits{MaxStringBytes: 12}, Below: ir.Limits{MaxStringBytes: 11}, Want: "attribute _note of 12 bytes"},
	})
}
