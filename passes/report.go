// This file formats DIE's dead-space report (--report-dead).

package passes

import (
	"fmt"
	"strings"
)

// DeadReport formats the dead iteration space of every op: the set in isl notation, its size
// and the fraction of the domain removed (static shapes), why the iterations died (their
// results are unused, or they contribute a reduction's identity: a known-zero factor), and a
// total line.
func (st *State) DeadReport() string {
	var sb strings.Builder
	sb.WriteString("dead iterations (die):\n")
	for _, d := range st.Dead {
		if d.HasKnownZero() {
			sb.WriteString("  (unused: no required element depends on them; known identity: they add a known zero, or\n" +
				"   take the max of a known -inf, so known-values skipped them)\n")
			break
		}
	}
	var total, dead int64
	counted := true
	for _, d := range st.Dead {
		kz := d.HasKnownZero()
		if d.Counted {
			n := d.DeadCount + d.KnownZeroCount
			pct := 0.0
			if d.Total > 0 {
				pct = 100 * float64(n) / float64(d.Total)
			}
			fmt.Fprintf(&sb, "  %%%s (%s): %d of %d iterations dead (%.1f%%)", d.Op, d.Kind, n, d.Total, pct)
			if d.KnownZeroCount > 0 {
				fmt.Fprintf(&sb, ": %d unused, %d known identity", d.DeadCount, d.KnownZeroCount)
			}
			sb.WriteString("\n")
			total += d.Total
			dead += n
		} else if d.dead == nil && !kz {
			fmt.Fprintf(&sb, "  %%%s (%s): no dead iterations\n", d.Op, d.Kind)
		} else {
			counted = false
			fmt.Fprintf(&sb, "  %%%s (%s): dead iterations (symbolic shape)\n", d.Op, d.Kind)
		}
		if d.Approximate {
			sb.WriteString("      (analysis gave up: the op was kept whole)\n")
		}
		if d.dead != nil {
			if kz {
				fmt.Fprintf(&sb, "      unused: %s\n", *d.dead)
			} else {
				fmt.Fprintf(&sb, "      %s\n", *d.dead)
			}
		}
		if kz {
			fmt.Fprintf(&sb, "      known identity: %s\n", *d.knownZero)
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
