package volume

import "testing"

func TestQuick(t *testing.T) {
	for _, s := range []string{
		"{ [i, j, k] : 0 <= i < 512 and 0 <= j < 512 and 0 <= k < 512 }",
		"[N] -> { S[i, j] : 0 <= i < N and i <= j < N }",
		"[N] -> { S[i, j] : 0 <= i < N and i <= j < N and exists (e : i + j = 2e) }",
		"{ [i] : i mod 3 = 1 and 0 <= i < 20 }",
		"{ [i] : 0 <= i < 10 and i > 20 }",
		"{ [i, j] : 0 <= i, j < 10 and i != j }",
		"{ A[i, j] -> B[i + 1, 2j] }",
		"{ [i] -> [floor(i/4), i mod 4] }",
	} {
		var out string
		if err := Try(func() {
			if m, err := ParseMap(s); err == nil {
				out = m.String()
				return
			}
			x, err := ParseSet(s)
			if err != nil {
				out = err.Error()
				return
			}
			out = x.String()
		}); err != nil {
			out = err.Error()
		}
		t.Logf("%s\n   => %s", s, out)
	}
	d := MustParseSet("{ [i, j, k] : 0 <= i < 512 and 0 <= j < 512 and 0 <= k < 512 }")
	req := MustParseSet("{ [i, j] : 0 <= i <= j < 512 }")
	outMap := MustParseMap("{ [i, j, k] -> [i, j] }")
	contrib := req.Preimage(outMap).Intersect(d)
	t.Logf("contrib %s", contrib)
	t.Logf("A req %s", contrib.Apply(MustParseMap("{ [i, j, k] -> [i, k] }")))
	t.Logf("B req %s", contrib.Apply(MustParseMap("{ [i, j, k] -> [k, j] }")))
	t.Logf("dead %s", d.Subtract(contrib))
	t.Logf("conv %s", MustParseSet("{ [o, k] : 0 <= o < 10 and 0 <= k < 3 }").Apply(MustParseMap("{ [o, k] -> [2o + k] }")))
	t.Logf("conv5 %s", MustParseSet("{ [o, k] : 0 <= o < 10 and 0 <= k < 2 }").Apply(MustParseMap("{ [o, k] -> [3o + k] }")))
	t.Logf("simpl %s", MustParseSet("{ [o, k] : 0 <= o < 10 and 0 <= k < 2 }").Apply(MustParseMap("{ [o, k] -> [3o + k] }")).Simplify())
}
