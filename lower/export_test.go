// This file exports lowering internals to the package's external tests.

package lower

import "github.com/graphc/graphc/ir"

// WhyNotIntDot returns why op gets no integer dot-product kernel for cfg ("" when it does).
func WhyNotIntDot(op *ir.Op, cfg Config) string {
	b, err := NewBuilder(cfg)
	if err != nil {
		return err.Error()
	}
	_, why := planIntDot(op, b.mc, nil)
	return why
}

// PoolIR returns the default pool's LLVM IR for the target triple, as modules get it.
func PoolIR(triple string) string { return poolIR + relaxIR(triple) }
