// This file holds the immutable pieces that ops of the same rank share: the identity access
// and the names and kinds of an elementwise op's dims. A 100,000-op chain of elementwise ops
// held some 40 MB of identical copies of them (issue 37). Nothing writes into an op's index
// slices, access pieces, dim names or iterator kinds in place: code that rewrites them builds
// new slices (the rule every volume value follows too), so sharing them is safe.

package ir

import "github.com/graphc/graphc/volume"

// maxSharedRank is the highest rank whose shared forms are built once.
const maxSharedRank = 8

var (
	sharedIdentity [maxSharedRank + 1]Access
	sharedDims     [maxSharedRank + 1][]string
	sharedIters    [maxSharedRank + 1][]IterKind
)

func init() {
	for n := 0; n <= maxSharedRank; n++ {
		idx := identity(0, n)
		sharedIdentity[n] = Access{Pieces: []AccessPiece{{Index: idx[:n:n]}}}
		d := dimNames(n)
		sharedDims[n] = d[:n:n]
		sharedIters[n] = make([]IterKind, n)[:n:n]
	}
}

// identityAccess returns the access reading dims 0..n-1 in order, shared for small ranks. The
// caller must not write into it.
func identityAccess(n int) Access {
	if n <= maxSharedRank {
		return sharedIdentity[n]
	}
	return AffAccess(identity(0, n)...)
}

// parallelBox is SetBox with n parallel dims named by dimNames, whose names and kinds are
// shared for small ranks.
func (b *Builder) parallelBox(extents []volume.Aff) {
	n := len(extents)
	if n > maxSharedRank {
		b.SetBox(dimNames(n), extents, nil)
		return
	}
	b.Op.Dims = sharedDims[n]
	b.Op.Iters = sharedIters[n]
	b.Op.Full = cachedBox(b.Params, b.Op.Dims, extents)
}

// isIdentityIndex reports whether idx reads dims 0..len(idx)-1 in order.
func isIdentityIndex(idx []volume.Aff) bool {
	for d, a := range idx {
		if !a.Equal(volume.AffDim(d)) {
			return false
		}
	}
	return true
}
