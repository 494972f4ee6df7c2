package volume

import ("testing"; "time")

func TestDbg(t *testing.T) {
	for i := 0; i < 150; i++ {
		g := newGen(t, 13*1_000_003+uint64(i))
		v, s := g.set(len(setPool))
		t0 := time.Now()
		c := s.Complement()
		if d := time.Since(t0); d > 50*time.Millisecond {
			t.Log(i, d, s.NPieces(), c.NPieces(), v.text)
		}
	}
}
