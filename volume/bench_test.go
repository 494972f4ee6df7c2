// This file holds the benchmarks of the operations DIE and lowering use most, on tensor-sized
// inputs: a 6-dimensional convolution domain with 12 constraints over 3 parameters, its access
// maps and required regions. Target: median <= 20 µs per operation (`go test -bench . ./volume`).
// BenchmarkISL (isl_bench_test.go) times isl on the same inputs.

package volume

import "testing"

// The inputs in isl notation; BenchmarkISL gives isl the same texts.
const (
	benchDomainText = "[N, H, W] -> { S[n, h, w, c, kh, kw] : 0 <= n < N and 0 <= h < H and 0 <= w < W and 0 <= c < 16 and 0 <= kh < 3 and 0 <= kw < 3 }"
	benchBandText   = "[N, H, W] -> { S[n, h, w, c, kh, kw] : h <= w and h + kh >= 1 and w + kw <= W and c <= 7 }"
	benchEmptyText  = "[N, H, W] -> { S[n, h, w, c, kh, kw] : h <= w and w + kw <= W and h >= W + 2 }"
	benchAccessText = "[N, H, W] -> { S[n, h, w, c, kh, kw] -> I[n, h + kh, w + kw, c] }"
	benchOutText    = "[N, H, W] -> { S[n, h, w, c, kh, kw] -> O[n, h, w, c] }"
	benchReqText    = "[N, H, W] -> { O[n, h, w, c] : 0 <= n < N and 0 <= h <= w < W and c < 8 }"
	benchPiecesText = "[N, H, W] -> { S[n, h, w, c, kh, kw] : 0 <= n < N and 0 <= h < 8 and h < H and 0 <= w < W and 0 <= c < 16 and 0 <= kh < 3 and 0 <= kw < 3; " +
		"S[n, h, w, c, kh, kw] : 0 <= n < N and 8 <= h < H and 0 <= w < W and 0 <= c < 16 and 0 <= kh < 3 and 0 <= kw < 3; " +
		"S[n, h, w, c, kh, kw] : 0 <= n < N and 2 <= h < 5 and h < H and 0 <= w < W and 0 <= c < 4 and kh = 1 and 0 <= kw < 3 }"
)

var (
	benchDomain = MustParseSet(benchDomainText)
	benchBand   = MustParseSet(benchBandText)
	benchEmpty  = MustParseSet(benchEmptyText)
	benchAccess = MustParseMap(benchAccessText)
	benchOut    = MustParseMap(benchOutText)
	benchReq    = MustParseSet(benchReqText)
	benchPieces = MustParseSet(benchPiecesText)
)

// reportCPU, deferred as reportCPU(b)(), adds the CPU time per operation of the process (all
// threads, so garbage collection included) as cpu-ns/op: unlike ns/op it does not count the time
// other processes of a loaded machine take.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if start > 0 && b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func BenchmarkIntersect(b *testing.B) {
	defer reportCPU(b)()
	for b.Loop() {
		benchDomain.Intersect(benchBand)
	}
}

func BenchmarkSubtract(b *testing.B) {
	defer reportCPU(b)()
	for b.Loop() {
		benchDomain.Subtract(benchBand)
	}
}

func BenchmarkImage(b *testing.B) {
	defer reportCPU(b)()
	for b.Loop() {
		benchDomain.Apply(benchAccess)
	}
}

func BenchmarkPreimage(b *testing.B) {
	defer reportCPU(b)()
	for b.Loop() {
		benchReq.Preimage(benchOut)
	}
}

// The emptiness benchmarks time the decision procedure: their pieces are built directly, so
// that they carry no proof of non-emptiness (operations record one on the pieces they return,
// which makes IsEmpty of such results immediate).

func BenchmarkIsEmptyNonEmpty(b *testing.B) {
	defer reportCPU(b)()
	x := Set{union{params: benchDomain.u.params, spaces: benchDomain.u.spaces,
		pieces: []*basic{benchDomain.u.pieces[0].intersect(benchBand.u.pieces[0])}}}
	for b.Loop() {
		if x.IsEmpty().holds() {
			b.Fatal("empty")
		}
	}
}

func BenchmarkIsEmptyEmpty(b *testing.B) {
	defer reportCPU(b)()
	x := Set{union{params: benchDomain.u.params, spaces: benchDomain.u.spaces,
		pieces: []*basic{benchDomain.u.pieces[0].intersect(benchEmpty.u.pieces[0])}}}
	for b.Loop() {
		if !x.IsEmpty().holds() {
			b.Fatal("not empty")
		}
	}
}

func BenchmarkCoalesce(b *testing.B) {
	defer reportCPU(b)()
	for b.Loop() {
		if n := benchPieces.Coalesce().NPieces(); n != 1 {
			b.Fatalf("%d pieces", n)
		}
	}
}
