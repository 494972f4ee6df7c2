// This file keeps the disjunctive normal forms the parser builds small: negations and
// conjunctions of disjunctions multiply out, and most of the products are repeated atoms,
// contradictions or conjunctions that another one absorbs.

package volume

import (
	"slices"
	"strconv"
	"strings"
)

// key returns a canonical text of the atom (its kind, constant and terms by variable).
func (a atom) key() string {
	var sb strings.Builder
	if a.eq {
		sb.WriteByte('=')
	} else {
		sb.WriteByte('>')
	}
	sb.WriteString(strconv.FormatInt(a.l.c, 10))
	vs := make([]int, 0, len(a.l.t))
	for v := range a.l.t {
		vs = append(vs, v)
	}
	slices.Sort(vs)
	for _, v := range vs {
		sb.WriteByte(' ')
		sb.WriteString(strconv.Itoa(v))
		sb.WriteByte(':')
		sb.WriteString(strconv.FormatInt(a.l.t[v], 10))
	}
	return sb.String()
}

// opposite reports whether l >= 0 and m >= 0 cannot hold together: l + m is a negative
// constant.
func opposite(l, m lin) bool {
	if len(l.t) != len(m.t) {
		return false
	}
	for v, c := range l.t {
		if m.t[v] != -c {
			return false
		}
	}
	s := l.c + m.c
	if (l.c < 0) == (m.c < 0) && (s < 0) != (l.c < 0) {
		return false // overflow: not decided here
	}
	return s < 0
}

// simplifyDNF returns f without repeated atoms within a conjunction, without constant atoms
// that hold, without conjunctions that contain a false constant atom or two opposite
// inequalities, and without conjunctions that contain every atom of another one (absorption:
// a ∨ (a ∧ b) = a). The result denotes the same formula.
func simplifyDNF(f dnf) dnf {
	type keyed struct {
		c    conj
		keys []string // sorted
	}
	var cs []keyed
	seen := map[string]bool{}
next:
	for _, c := range f {
		var kc conj
		var keys []string
		for _, a := range c {
			if a.l.isConst() {
				if a.eq && a.l.c != 0 || !a.eq && a.l.c < 0 {
					continue next // false: the conjunction is empty
				}
				continue // true
			}
			k := a.key()
			if slices.Contains(keys, k) {
				continue
			}
			if !a.eq {
				for _, b := range kc {
					if !b.eq && opposite(a.l, b.l) {
						continue next
					}
				}
			}
			kc = append(kc, a)
			keys = append(keys, k)
		}
		slices.Sort(keys)
		whole := strings.Join(keys, "|")
		if seen[whole] {
			continue
		}
		seen[whole] = true
		cs = append(cs, keyed{kc, keys})
	}
	// absorption: a conjunction is dropped when another one's atoms are all among its own
	// (and fewer). The kept ones stay in their order: the pieces of a parse follow its text,
	// so that printing and parsing again gives the same text.
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(cs[a].keys) - len(cs[b].keys) })
	var kept []int // shorter conjunctions first
	keep := make([]bool, len(cs))
	for _, i := range order {
		absorbed := false
		for _, k := range kept {
			if len(cs[k].keys) < len(cs[i].keys) && subsetSorted(cs[k].keys, cs[i].keys) {
				absorbed = true
				break
			}
		}
		if !absorbed {
			kept = append(kept, i)
			keep[i] = true
		}
	}
	out := dnf{}
	for i, c := range cs {
		if keep[i] {
			out = append(out, c.c)
		}
	}
	return out
}

// subsetSorted reports whether every string of a (sorted) is in b (sorted).
func subsetSorted(a, b []string) bool {
	j := 0
	for _, s := range a {
		for j < len(b) && b[j] < s {
			j++
		}
		if j == len(b) || b[j] != s {
			return false
		}
		j++
	}
	return true
}
