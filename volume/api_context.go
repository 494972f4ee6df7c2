// This file holds the operations bound to a context.Context, which stop with the context's
// error when it is done, and return the error beside the value (predicates: the answer and an
// error; operations: the result, an error value when the error is not nil).

package volume

import "context"

// withBudget runs f with the budget of one operation bound to ctx (nil: none) and turns the
// package's panics into an error (the error of the first operand that is an error value, if any).
func withBudget(ctx context.Context, f func(bg *budget), us ...union) error {
	for _, u := range us {
		if u.err != nil {
			return u.err
		}
	}
	return try(func() { f(newBudget(ctx)) })
}

// IsEmptyContext is IsEmpty as an answer and an error (ErrTooComplex, ErrOverflow, or ctx's error
// once ctx is done; ctx may be nil: no context).
func (s Set) IsEmptyContext(ctx context.Context) (bool, error) { return s.u.emptyCtx(ctx) }

// IsSubsetContext is IsSubset as an answer and an error (see IsEmptyContext).
func (s Set) IsSubsetContext(ctx context.Context, t Set) (bool, error) {
	return s.u.subsetCtx(ctx, t.u)
}

// IsEqualContext is IsEqual as an answer and an error (see IsEmptyContext).
func (s Set) IsEqualContext(ctx context.Context, t Set) (bool, error) {
	return s.u.equalCtx(ctx, t.u)
}

// IntersectContext is Intersect bound to ctx, with the error beside the value.
func (s Set) IntersectContext(ctx context.Context, t Set) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = Set{s.u.intersect(t.u, bg)} }, s.u, t.u)
	if err != nil {
		r = Set{union{err: err}}
	}
	return r, err
}

// SubtractContext is Subtract bound to ctx, with the error beside the value.
func (s Set) SubtractContext(ctx context.Context, t Set) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = Set{s.u.subtract(t.u, bg)} }, s.u, t.u)
	if err != nil {
		r = Set{union{err: err}}
	}
	return r, err
}

// ApplyContext is Apply bound to ctx, with the error beside the value.
func (s Set) ApplyContext(ctx context.Context, m Map) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = s.image(m, false, bg) }, s.u, m.u)
	if err != nil {
		r = Set{union{err: err}}
	}
	return r, err
}

// PreimageContext is Preimage bound to ctx, with the error beside the value.
func (s Set) PreimageContext(ctx context.Context, m Map) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = s.image(m, true, bg) }, s.u, m.u)
	if err != nil {
		r = Set{union{err: err}}
	}
	return r, err
}

// CoalesceContext is Coalesce bound to ctx, with the error beside the value.
func (s Set) CoalesceContext(ctx context.Context) (r Set, err error) {
	err = withBudget(ctx, func(bg *budget) { r = Set{s.u.coalesce(bg)} }, s.u)
	if err != nil {
		r = Set{union{err: err}}
	}
	return r, err
}

// IsEmptyContext is IsEmpty as an answer and an error (see Set.IsEmptyContext).
func (m Map) IsEmptyContext(ctx context.Context) (bool, error) { return m.u.emptyCtx(ctx) }

// IsSubsetContext is IsSubset as an answer and an error (see IsEmptyContext).
func (m Map) IsSubsetContext(ctx context.Context, n Map) (bool, error) {
	return m.u.subsetCtx(ctx, n.u)
}

// IsEqualContext is IsEqual as an answer and an error (see IsEmptyContext).
func (m Map) IsEqualContext(ctx context.Context, n Map) (bool, error) {
	return m.u.equalCtx(ctx, n.u)
}
