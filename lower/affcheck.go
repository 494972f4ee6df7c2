// This file holds the one check that lets lowering read the fields of affine expressions
// (volume.Aff's Const, Dims, Params, Floors) without an error check at each read.
//
// volume records a computation that gave up (an overflow) in the value it returns: an error Aff
// has no terms, and a read of its fields sees the constant 0, a silently wrong index. Lowering
// reads those fields in about 30 places (strategy.go's coefOf and floorsUse, contract.go's
// isDim and the volume.BlockDen it calls, contract_guard.go's bounds of the reads, alias.go's
// shifts, nbits.go's uses, parallel.go's indexedBy and splitLevel, intdot_*.go's window and
// weight layouts, region.go's affInterval, header.go's and signature.go's extents, bounded.go's
// fixBounded).
// They cannot see an error value, for these reasons, which every new read must keep true:
//
//   - Affs of the graph (the ops' access and out maps, guards and domains, the values' shapes)
//     are checked once, before any stage, by checkVolumes: an error value there is an error
//     of Lower naming the op, never a kernel.
//   - Affs lowering derives (with volume arithmetic, or from the loop bounds of a scan) are
//     checked where they are made or used: contraction.plan returns ir.AffsErr of its tile
//     bounds, region.go's affInterval returns the error of the scan bounds it reads,
//     funcBuilder.aff refuses an error value (every Aff that becomes code goes through it, so a
//     choice made on a misread derived Aff, splitLevel's, still fails cleanly), bounded.go's
//     fixBounded, whose results header.go prints, is computed by checkBoundedExtents first for
//     every value, and derived Affs only compared (nbits.go's linear offsets) use Equal and
//     IsConst, which never hold for an error value.
//   - The other reads only take apart an Aff of the graph without arithmetic
//     (contract_guard.go's guards: a.Dims[min(n, len(a.Dims)):], Floors dropped).

package lower

import (
	"fmt"

	"github.com/graphc/graphc/ir"
)

// checkVolumes returns an error when an affine expression, map or set of g is an error value
// (an arithmetic overflow volume recorded while the graph was built or rewritten).
func checkVolumes(g *ir.Graph) error {
	for _, op := range g.Ops {
		if err := op.VolumeErr(); err != nil {
			return fmt.Errorf("op %%%s (%s): an index expression or domain volume gave up on: %w", op.Result.Name, op.Kind, err)
		}
	}
	for _, vs := range [][]*ir.Value{g.Inputs, g.Outputs, g.Consts} {
		for _, v := range vs {
			if err := ir.AffsErr(v.Type.Shape); err != nil {
				return fmt.Errorf("%%%s of type %s: an extent volume gave up on: %w", v.Name, v.Type, err)
			}
		}
	}
	return nil
}
