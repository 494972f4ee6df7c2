// This file keeps the package's panics inside it. The algorithms stop by panicking (overflow,
// the work budget, a done context, a space mismatch), deep in eliminations where returning
// errors through every step would hide the mathematics; every public operation runs its work
// under try and returns what happened as a value:
//
//   - operations that build a Set or Map return an error value (Err reports its error) that
//     keeps the result's spaces, as isl's functions return NULL; every operation on an error
//     value returns an error value with the same error, and the predicates answer Unknown;
//   - predicates return a Tri (Unknown when they gave up);
//   - operations that return an error (Card, Points, Scan, DimBounds, …) return it, also the
//     error of an error value.
//
// So a chain s.Intersect(t).Apply(m).Coalesce() needs one check at its end, and a panic of the
// package never reaches a caller.

package volume

import "context"

// errUnion returns the error value of an operation on operands: the spaces and parameters the
// result would have (f run on the operands without their pieces, which costs nothing), with
// err. When even that fails (a space mismatch), the value has no space.
func errUnion(err error, f func(bg *budget, us []union) union, us []union) union {
	shells := make([]union, len(us))
	for i, u := range us {
		shells[i] = union{params: u.params, spaces: u.spaces}
	}
	var r union
	if try(func() { r = f(newBudget(nil), shells) }) != nil {
		r = union{}
	}
	r.pieces = nil
	r.err = err
	return r
}

// guard runs f, the work of a public operation, on its operands with one budget, and returns its
// result, or the error value (errUnion) when an operand is one or the work gave up.
func guard(f func(bg *budget, us []union) union, us ...union) union {
	for _, u := range us {
		if u.err != nil {
			return errUnion(u.err, f, us)
		}
	}
	var r union
	if err := try(func() { r = f(newBudget(nil), us) }); err != nil {
		return errUnion(err, f, us)
	}
	return r
}

// decide runs the predicate f on its operands: Yes or No, or Unknown when an operand is an
// error value or the work gave up.
func decide(f func(us []union) bool, us ...union) Tri {
	for _, u := range us {
		if u.err != nil {
			return Unknown
		}
	}
	var ans bool
	if try(func() { ans = f(us) }) != nil {
		return Unknown
	}
	return TriOf(ans)
}

// The operations of Set and Map that are the same on their unions, as guard's work.

func intersectOp(bg *budget, us []union) union { return us[0].intersect(us[1], bg) }

func uniteOp(_ *budget, us []union) union { return us[0].unite(us[1]) }

func subtractOp(bg *budget, us []union) union { return us[0].subtract(us[1], bg) }

func simplifyOp(bg *budget, us []union) union { return us[0].simplify(bg) }

func coalesceOp(bg *budget, us []union) union { return us[0].coalesce(bg) }

// The predicates of Set and Map, shared: as a Tri, and bound to a context.

func (u union) emptyTri() Tri { return decide(func(us []union) bool { return us[0].isEmpty(nil) }, u) }

func (u union) subsetTri(v union) Tri {
	return decide(func(us []union) bool { return us[0].isSubset(us[1], newBudget(nil)) }, u, v)
}

func (u union) equalTri(v union) Tri {
	return decide(func(us []union) bool { return us[0].isEqual(us[1], newBudget(nil)) }, u, v)
}

func (u union) emptyCtx(ctx context.Context) (empty bool, err error) {
	err = withBudget(ctx, func(bg *budget) { empty = u.isEmpty(bg) }, u)
	return empty, err
}

func (u union) subsetCtx(ctx context.Context, v union) (sub bool, err error) {
	err = withBudget(ctx, func(bg *budget) { sub = u.isSubset(v, bg) }, u, v)
	return sub, err
}

func (u union) equalCtx(ctx context.Context, v union) (eq bool, err error) {
	err = withBudget(ctx, func(bg *budget) { eq = u.isEqual(v, bg) }, u, v)
	return eq, err
}

// Err returns the error of an error value (an operation that built s gave up: ErrTooComplex,
// ErrOverflow, ErrSpaceMismatch, a context's error), or nil.
func (s Set) Err() error { return s.u.err }

// Err returns the error of an error value (see Set.Err), or nil.
func (m Map) Err() error { return m.u.err }

// FirstErr returns the first error among the values' (Set, Map or Aff) Err, or nil: one check
// for the results of a computation.
func FirstErr(vs ...interface{ Err() error }) error {
	for _, v := range vs {
		if err := v.Err(); err != nil {
			return err
		}
	}
	return nil
}
