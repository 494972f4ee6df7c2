package volume_test

import (
	"fmt"

	"github.com/graphc/graphc/volume"
)

// Restricting a matmul domain to the elements a band_part keeps, then reading the result back.
func Example() {
	dom := volume.MustParseSet("[N] -> { S[i, j, k] : 0 <= i, j, k < N }")
	band := volume.MustParseSet("[N] -> { S[i, j, k] : j >= i }")
	live := dom.Intersect(band).Coalesce()
	fmt.Println(live)
	fmt.Println(live.IsSubset(dom), dom.IsSubset(live))
	n, _ := live.FixParam("N", 4).Card(nil)
	fmt.Println(n)
	// Output:
	// [N] -> { S[i, j, k] : i >= 0 and 0 <= k < N and i <= j < N }
	// yes no
	// 40
}

// The image of a set under an access map, and the points of a bounded set.
func ExampleSet_Apply() {
	s := volume.MustParseSet("{ A[i, j] : 0 <= i < 2 and 0 <= j < 3 }")
	m := volume.MustParseMap("{ A[i, j] -> B[i + 1, 2j] }")
	img := s.Apply(m).Coalesce()
	fmt.Println(img)
	pts, _ := img.Points(nil, 0)
	fmt.Println(pts)
	lo, _ := img.Lexmin()
	fmt.Println(lo)
	// Output:
	// { B[i0, i1] : i1 mod 2 = 0 and 1 <= i0 < 3 and 0 <= i1 < 5 }
	// [[1 0] [1 2] [1 4] [2 0] [2 2] [2 4]]
	// { B[1, 0] }
}
