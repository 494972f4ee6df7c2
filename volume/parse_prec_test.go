// This file checks that expressions are read with isl's precedence: a table of forms with their
// meaning written out (no isl needed), and every combination of coefficient, factor, postfix
// operator and context read by the installed isl and by the parser (TestISLPrecedence).

package volume

import (
	"regexp"
	"strings"
	"testing"
)

// precBox bounds the sets of the precedence tests: every form is read inside it.
const precBox = "-9 <= i, j <= 9"

func TestParsePrecedence(t *testing.T) {
	for _, c := range []struct{ form, same string }{
		// a coefficient scales the whole factor, its mod included (isl 0.25)
		{"2i mod 8 = 2", "i mod 8 = 1"},
		{"2*i mod 8 = 2", "i mod 8 = 1"},
		{"2 i mod 8 = 2", "i mod 8 = 1"},
		{"(2i) mod 8 = 2", "i mod 4 = 1"},
		{"-2i mod 8 = -2", "i mod 8 = 1"},
		{"- 2*i mod 8 = -2", "i mod 8 = 1"},
		{"2*3*i mod 8 = 6", "i mod 8 = 1"},
		{"3*2*i*3 mod 4 = 6", "(6i) mod 4 = 2"},
		{"2*(i + 1) mod 8 = 2", "i mod 8 = 0"},
		{"2(i + 1) mod 8 = 2", "i mod 8 = 0"},
		{"2floor(i/2) mod 3 = 2", "floor(i/2) mod 3 = 1"},
		// a sign applies to the factor after the mod
		{"-i mod 8 = -2", "i mod 8 = 2"},
		{"--i mod 8 = 2", "i mod 8 = 2"},
		{"-(i) mod 8 = -2", "i mod 8 = 2"},
		{"j - i mod 8 = 0", "j = i - 8*floor(i/8)"},
		{"j - 2i mod 8 = 0", "j = 2i - 16*floor(i/8)"},
		{"5 - i mod 8 = 2", "i mod 8 = 3"},
		{"(5) mod 3 = 2", "true"},
		{"2*5 mod 3 = 4", "true"},
		{"2*-5 mod 3 = 2", "true"},
		{"(i mod 8) mod 3 = 2", "exists (q : i = 8q + 2 or i = 8q + 5)"},
		{"3*2*i mod 4 mod 3 = 3", "(2*(i mod 4)) mod 3 = 1"},
		// "/" divides the factor before it; a rational constraint is multiplied out
		{"floor(i + j/2) = 1", "i + floor(j/2) = 1"},
		{"floor((i + j)/2) = 1", "2 <= i + j <= 3"},
		{"floor(2i/3) = 1", "3 <= 2i <= 5"},
		{"floor(i/2*3) = 1", "6 <= i <= 11"},
		{"i/2 = j", "i = 2j"},
		{"i/2 < 1", "i <= 0"}, // isl: a < b is a <= b - 1
		{"i // 2 = 1", "2 <= i <= 3"},
		{"7 // 2 = i", "i = 3"},
		{"j - 5 // 2 = 1", "j = 4"},
		{"ceil(i/3) mod 2 = 1", "exists (q : 0 <= 3q - i <= 2 and q mod 2 = 1)"},
		{"floor(i/3)*2 = 2", "3 <= i <= 5"},
		{"i*2*3 = 6", "i = 1"},
	} {
		got, err := ParseSet("{ [i, j] : " + precBox + " and " + c.form + " }")
		if err != nil {
			t.Errorf("%s: %v", c.form, err)
			continue
		}
		want := MustParseSet("{ [i, j] : " + precBox + " and " + c.same + " }")
		if !got.IsEqual(want).holds() {
			t.Errorf("%s read as %s, want %s", c.form, got, want)
		}
	}
	// forms whose reading is not clear are rejected, as isl rejects them
	for _, form := range []string{
		"5 mod 3 = 2", "i + 3 mod 8 = 2", "i*2 mod 8 = 2", "i mod 8 * 2 = 4", "i mod 8 mod 3 = 2",
		"i/2 mod 3 = 1", "2*i mod 8*2 = 4", "i mod -8 = 2", "i mod (8) = 2", "i * j = 2",
	} {
		if s, err := ParseSet("{ [i, j] : " + precBox + " and " + form + " }"); err == nil {
			t.Errorf("%s parsed as %s, want an error", form, s)
		}
	}
}

// precForms returns every combination of a context, a coefficient, a factor and a postfix
// operator, each compared with a constant: the forms TestISLPrecedence reads with isl.
func precForms() []string {
	coefs := []string{"", "2", "2*", "2 ", "-", "-2", "- 2", "-2*", "--", "- -2*", "3*2*"}
	factors := []string{"i", "(i + j)", "(2i)", "floor(i/3)", "ceil((i - j)/2)", "floor(i + j/2)", "(i)", "5", "(5)", "(-5)"}
	posts := []string{"", " mod 4", " % 4", " mod 4 mod 3", "*3", "*3 mod 4", "/2", " mod 4*2", " mod 4/2", " // 2"}
	contexts := []string{"X", "j - X", "1 + X", "X - j", "j -X", "(X)"}
	rels := []string{" = 1", " >= 1", " < -1"}
	var out []string
	for _, ctx := range contexts {
		for _, c := range coefs {
			for _, f := range factors {
				for k, p := range posts {
					rel := rels[(len(out)+k)%len(rels)]
					out = append(out, strings.Replace(ctx, "X", c+f+p, 1)+rel)
				}
			}
		}
	}
	return out
}

// juxtaposed matches a coefficient written before "(", floor or ceil without "*".
var juxtaposed = regexp.MustCompile(`([0-9]) ?(\(|floor|ceil)`)

// islSpelling returns form with graphc's extensions written as isl reads them: "2(" as "2*(",
// "2floor" as "2*floor".
func islSpelling(form string) string { return juxtaposed.ReplaceAllString(form, "$1*$2") }

func TestISLPrecedence(t *testing.T) {
	d := startISL(t)
	forms := precForms()
	agree, bothReject, extension := 0, 0, 0
	for _, form := range forms {
		text := "{ [i, j] : " + precBox + " and " + form + " }"
		mine, err := ParseSet(text)
		theirs := d.ask(t, "set", text)
		switch {
		case theirs == "ERROR" && err != nil:
			bothReject++
		case theirs == "ERROR":
			// a form isl rejects: the parser reads it only as an extension, as isl reads its
			// isl spelling
			spelt := islSpelling(form)
			if spelt == form {
				t.Errorf("isl rejects %q, graphc reads %s", form, mine)
				continue
			}
			theirs = d.ask(t, "set", "{ [i, j] : "+precBox+" and "+spelt+" }")
			if want, err := ParseSet(theirs); err != nil || !mine.IsEqual(want).holds() {
				t.Errorf("graphc reads %q as %s, isl reads %q as %s", form, mine, spelt, theirs)
			}
			extension++
		case err != nil:
			t.Errorf("isl reads %q as %s, graphc rejects it: %v", form, theirs, err)
		default:
			want, perr := ParseSet(theirs)
			if perr != nil {
				t.Errorf("isl's reading of %q does not parse: %v\n%s", form, perr, theirs)
				continue
			}
			if !mine.IsEqual(want).holds() {
				t.Errorf("%q: isl reads %s, graphc %s", form, want, mine)
				continue
			}
			// printing is unambiguous: isl reads graphc's printed form as the same set
			back := d.ask(t, "set", mine.String())
			if r, err := ParseSet(back); err != nil || !r.IsEqual(mine).holds() {
				t.Errorf("%q: isl reads graphc's %s as %s (%v)", form, mine, back, err)
			}
			agree++
		}
	}
	t.Logf("%d forms: %d read alike by isl and graphc, %d rejected by both, %d graphc extensions", len(forms), agree, bothReject, extension)
	if agree < len(forms)/3 {
		t.Errorf("only %d of %d forms read by both", agree, len(forms))
	}
}
