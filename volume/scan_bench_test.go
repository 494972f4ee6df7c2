// This file holds the benchmarks of scanning and counting: codegen of typical 3–6 dimensional op
// domains (the target is 1 ms per nest; isl's AST build takes 1.2–3.5 ms on this machine class)
// and Card of large domains.

package volume

import (
	"testing"
)

// opDomains are iteration domains of typical ops, as lowering scans them after DIE.
var opDomains = []struct{ name, src string }{
	{"matmul-3d", "[M, N, K] -> { S[i, j, k] : 0 <= i < M and 0 <= j < N and 0 <= k < K }"},
	{"matmul-trilu-3d", "[M, P] -> { S[i, j, k] : 0 <= i < M and i <= j < M and 0 <= k < P }"},
	{"matmul-diag-3d", "[M, P] -> { S[i, j, k] : 0 <= i < M and j = i and 0 <= k < P }"},
	{"batch-matmul-4d", "{ S[b, i, j, k] : 0 <= b < 8 and 0 <= i < 128 and 0 <= j < 128 and 0 <= k < 64 }"},
	{"checkerboard-4d", "[N] -> { S[b, c, i, j] : 0 <= b < 2 and 0 <= c < 3 and 0 <= i < N and 0 <= j < N and (i + j) mod 2 = 0 }"},
	{"maxpool-6d", "{ S[n, c, y, x, a, b] : 0 <= n < 1 and 0 <= c < 16 and 0 <= y < 56 and 0 <= x < 56 and 0 <= a < 3 and 0 <= b < 3 and 1 <= 2y + a <= 112 and 1 <= 2x + b <= 112 }"},
	{"conv-dense-6d", "{ S[f, y, x, c, a, b] : 0 <= f < 8 and 0 <= y < 256 and 0 <= x < 256 and 0 <= c < 3 and 0 <= a < 5 and 0 <= b < 5 and 1 <= 2y + a <= 512 and 1 <= 2x + b <= 512 }"},
	{"mean-tile-2d", "[H, W, LB0, UB0, LB1, UB1] -> { S[i, j] : 1 <= i < H - 1 and 1 <= j < W - 1 and LB0 <= i <= UB0 + 1 and LB1 - 1 <= j <= UB1 }"},
}

func BenchmarkScan(b *testing.B) {
	for _, d := range opDomains {
		s := MustParseSet(d.src)
		b.Run(d.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Scan(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanBorders scans a union: the padding-dependent outputs of a padded convolution.
func BenchmarkScanBorders(b *testing.B) {
	s := MustParseSet("{ S[n, f, h, w] : 0 <= n < 1 and 0 <= f < 8 and 0 <= h < 256 and 0 <= w < 256 and (h <= 0 or w <= 0 or h >= 255 or w >= 255) }")
	for b.Loop() {
		if _, err := s.Scan(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCard(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"box-512^3", "{ S[i, j, k] : 0 <= i < 512 and 0 <= j < 512 and 0 <= k < 512 }"},
		{"triangle-512^3", "{ S[i, j, k] : 0 <= i < 512 and i <= j < 512 and 0 <= k < 512 }"},
		{"checkerboard-512^2", "{ S[i, j] : 0 <= i < 512 and 0 <= j < 512 and (i + j) mod 2 = 0 }"},
	} {
		s := MustParseSet(c.src)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := s.Card(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
