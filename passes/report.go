// This file formats DIE's dead-space report (--report-dead).

package passes

import (
	"fmt"
	"strings"
)

// DeadReport formats the dead iteration space of every op: the set in isl notation, its size
// and the fraction of the domain removed (static shapes), and a total line.
func (st *State) DeadReport() string {
	var sb strings.Builder
	sb.WriteString("dead iterations (die):\n")
	var total, dead int64
	counted := true
	for _, d := range st.Dead {
		if d.Counted {
			pct := 0.0
			if d.Total > 0 {
				pct = 100 * float64(d.DeadCount) / float64(d.Total)
			}
			fmt.Fprintf(&sb, "  %%%s (%s): %d of %d iterations dead (%.1f%%)\n", d.Op, d.Kind, d.DeadCount, d.Total, pct)
			total += d.Total
			dead += d.DeadCount
		} else if d.Dead.PlainIsEmpty() {
			fmt.Fprintf(&sb, "  %%%s (%s): no dead iterations\n", d.Op, d.Kind)
		} else {
			counted = false
			fmt.Fprintf(&sb, "  %%%s (%s): dead iterations (symbolic shape)\n", d.Op, d.Kind)
		}
		if d.Approximate {
			sb.WriteString("      (analysis gave up: the op was kept whole)\n")
		}
		if !d.Dead.PlainIsEmpty() {
			fmt.Fprintf(&sb, "      %s\n", d.Dead)
		}
	}
	if counted {
		pct := 0.0
		if total > 0 {
			pct = 100 * float64(dead) / float64(total)
		}
		fmt.Fprintf(&sb, "  total: %d of %d iterations dead (%.1f%%)\n", dead, total, pct)
	}
	return sb.String()
}
