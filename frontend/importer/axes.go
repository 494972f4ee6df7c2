// This file holds the axis helpers node importers share.

package importer

import (
	"fmt"
	"slices"

	"github.com/graphc/graphc/ir"
)

// Ints converts axes to an integer-list attribute.
func Ints(axes []int) ir.Attr {
	out := make([]int64, len(axes))
	for i, a := range axes {
		out[i] = int64(a)
	}
	return ir.IntsAttr(out...)
}

// ResolveAxes maps possibly negative axes into [0, rank), rejecting repeats; errors wrap
// invalid (the format's ErrInvalid).
func ResolveAxes(axes []int64, rank int, invalid error) ([]int, error) {
	out := make([]int, 0, len(axes))
	seen := map[int]bool{}
	for _, a := range axes {
		if a < -int64(rank) || a >= int64(rank) {
			return nil, fmt.Errorf("%w: axis %d out of range for rank %d", invalid, a, rank)
		}
		if a < 0 {
			a += int64(rank)
		}
		if seen[int(a)] {
			return nil, fmt.Errorf("%w: axis %d repeated", invalid, a)
		}
		seen[int(a)] = true
		out = append(out, int(a))
	}
	return out, nil
}

// SortedKeys returns the keys of a table, sorted (the ops an importer supports).
func SortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
