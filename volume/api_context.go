// This file holds the variants of the operations that can give up that return an error instead
// of panicking: tri-state predicates (true, false, or ErrTooComplex / ErrOverflow) and
// operations bound to a context.Context, which stop with the context's error when it is done.

package volume

import "context"

// withBudget runs f with the budget of one operation bound to ctx (nil: none) and turns the
// package's panics into an error, as Try does.
func withBudget(ctx context.Context, f func(bg *budget)) error {
	return Try(func() { f(newBudget(ctx)) })
}

// TryIsEmpty is IsEmpty as a tri-state result: the answer with a nil error, or an error
// (ErrTooComplex, ErrOverflow) when the exact test gives up.
func (s Set) TryIsEmpty() (bool, error) { return s.IsEmptyContext(context.Background()) }

// IsEmptyContext is TryIsEmpty that also stops with ctx's error when ctx is done (ctx may be nil: no context).
func (s Set) IsEmptyContext(ctx context.Context) (empty bool, err error) {
	err = withBudget(ctx, func(bg *budget) { empty = s.u.isEmpty(bg) })
	return empty, err
}

// TryIsSubset is IsSubset as a tri-state result (see TryIsEmpty).
func (s Set) TryIsSubset(t Set) (bool, error) { return s.IsSubsetContext(context.Background(), t) }

// IsSubsetContext is TryIsSubset bound to ctx.
func (s Set) IsSubsetContext(ctx context.Context, t Set) (sub bool, err error) {
	err = withBudget(ctx, func(bg *budget) { sub = s.u.isSubset(t.u, bg) })
	return sub, err
}

// TryIsEqual is IsEqual as a tri-state result (see TryIsEmpty).
func (s Set) TryIsEqual(t Set) (bool, error) { return s.IsEqualContext(context.Background(), t) }

// IsEqualContext is TryIsEqual bound to ctx.
func (s Set) IsEqualContext(ctx context.Context, t Set) (eq bool, err error) {
	err = withBudget(ctx, func(bg *budget) { eq = s.u.isEqual(t.u, bg) })
	return eq, err
}

// IntersectContext is Intersect returning an error instead of panicking, bound to ctx.
func (s Set) IntersectContext(ctx context.Context, t Set) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = Set{s.u.intersect(t.u, bg)} })
	return r, err
}

// SubtractContext is Subtract returning an error instead of panicking, bound to ctx.
func (s Set) SubtractContext(ctx context.Context, t Set) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = Set{s.u.subtract(t.u, bg)} })
	return r, err
}

// ApplyContext is Apply returning an error instead of panicking, bound to ctx.
func (s Set) ApplyContext(ctx context.Context, m Map) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = s.image(m, false, bg) })
	return r, err
}

// PreimageContext is Preimage returning an error instead of panicking, bound to ctx.
func (s Set) PreimageContext(ctx context.Context, m Map) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = s.image(m, true, bg) })
	return r, err
}

// CoalesceContext is Coalesce returning an error instead of panicking, bound to ctx.
func (s Set) CoalesceContext(ctx context.Context) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = Set{s.u.coalesce(bg)} })
	return r, err
}

// TryIsEmpty is IsEmpty as a tri-state result (see Set.TryIsEmpty).
func (m Map) TryIsEmpty() (bool, error) { return m.IsEmptyContext(context.Background()) }

// IsEmptyContext is TryIsEmpty bound to ctx.
func (m Map) IsEmptyContext(ctx context.Context) (empty bool, err error) {
	err = withBudget(ctx, func(bg *budget) { empty = m.u.isEmpty(bg) })
	return empty, err
}

// TryIsSubset is IsSubset as a tri-state result (see Set.TryIsEmpty).
func (m Map) TryIsSubset(n Map) (bool, error) { return m.IsSubsetContext(context.Background(), n) }

// IsSubsetContext is TryIsSubset bound to ctx.
func (m Map) IsSubsetContext(ctx context.Context, n Map) (sub bool, err error) {
	err = withBudget(ctx, func(bg *budget) { sub = m.u.isSubset(n.u, bg) })
	return sub, err
}

// TryIsEqual is IsEqual as a tri-state result (see Set.TryIsEmpty).
func (m Map) TryIsEqual(n Map) (bool, error) { return m.IsEqualContext(context.Background(), n) }

// IsEqualContext is TryIsEqual bound to ctx.
func (m Map) IsEqualContext(ctx context.Context, n Map) (eq bool, err error) {
	err = withBudget(ctx, func(bg *budget) { eq = m.u.isEqual(n.u, bg) })
	return eq, err
}
