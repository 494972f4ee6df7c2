// This file holds Coalesce: a union with fewer, larger pieces and the same points.

package volume

// Coalesce returns s with pieces contained in another piece dropped (exact subset tests) and
// redundant constraints removed.
func (s Set) Coalesce() Set { return Set{s.u.simplify().dropContained()} }

// Coalesce returns m with pieces contained in another piece dropped.
func (m Map) Coalesce() Map { return Map{m.u.simplify().dropContained()} }

// dropContained removes every piece that is a subset of another piece of the same space.
func (u union) dropContained() union {
	r := union{params: u.params, spaces: u.spaces}
	keep := make([]bool, len(u.pieces))
	for i := range keep {
		keep[i] = true
	}
	for i, a := range u.pieces {
		for j, b := range u.pieces {
			if i == j || !keep[j] || !a.sameSpace(b) {
				continue
			}
			if len(a.subtract(b)) == 0 {
				keep[i] = false
				break
			}
		}
	}
	for i, p := range u.pieces {
		if keep[i] {
			r.pieces = append(r.pieces, p)
		}
	}
	return r
}
