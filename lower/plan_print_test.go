package lower

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/volume"
)

func TestPlanBounds(t *testing.T) {
	floor := &sym{kind: symFloor, den: 2, args: []*sym{symConst(5)}}
	maxOf := &sym{kind: symMax, args: []*sym{symConst(1), floor}}
	same := &sym{kind: symMin, args: []*sym{symConst(3), symConst(3)}}
	sum := &sym{kind: symAdd, args: []*sym{maxOf, symConst(2)}}
	assert.Equal(t, "floor(5/2)", boundString(floor))
	assert.Equal(t, "max(1, floor(5/2))", boundString(maxOf))
	assert.Equal(t, "3", boundString(same), "equal bounds print once")
	assert.Equal(t, "(max(1, floor(5/2)) + 2)", boundString(sum))
	assert.Equal(t, "(4*max(1, floor(5/2)))", boundString(&sym{kind: symScale, coef: 4, args: []*sym{maxOf}}))
}

func TestPlanRegions(t *testing.T) {
	ty := ir.TensorType{Elem: ir.F32, Shape: []volume.Aff{volume.AffConst(8), volume.AffConst(32)}}
	assert.Equal(t, "whole", regionString(fullRegion, ty))
	row := &region{lo: [][]*sym{{symConst(7)}, {symConst(0)}}, hi: [][]*sym{{symConst(7)}, {symConst(31)}}}
	assert.Equal(t, "[7..7, 0..31]", regionString(row, ty))
	all := &region{lo: [][]*sym{{symConst(-1)}, {symConst(0)}}, hi: [][]*sym{{symConst(9)}, {symConst(40)}}}
	assert.Equal(t, "whole", regionString(all, ty), "a box clamped to the tensor is the whole tensor")
	none := &region{lo: [][]*sym{{}, {symConst(0)}}, hi: [][]*sym{{}, {symConst(31)}}}
	assert.Equal(t, "[empty, 0..31]", regionString(none, ty))
}
