// This file holds the runnable examples of scanning.

package volume_test

import (
	"fmt"

	"github.com/graphc/graphc/volume"
)

func ExampleSet_Scan() {
	s := volume.MustParseSet("[N] -> { S[i, j] : 0 <= i < N and i <= j < N and (i + j) mod 2 = 0 }")
	ast, err := s.Scan()
	if err != nil {
		panic(err)
	}
	fmt.Print(volume.C(ast, s.DimNames(), func(int) string { return "S" }))
	n, _ := s.Card(map[string]int64{"N": 4})
	fmt.Println("points for N = 4:", n)
	// Output:
	// for (int i = 0; i < N; i += 1)
	//   for (int j = i; j < N; j += 2)
	//     S(i, j);
	// points for N = 4: 6
}

func ExampleScanStatements() {
	interior := volume.MustParseSet("{ D[h, w] : 1 <= h <= 2 and 1 <= w <= 2 }")
	border := volume.MustParseSet("{ B[h, w] : 0 <= h <= 3 and 0 <= w <= 3 and (h = 0 or w = 0 or h = 3 or w = 3) }")
	ast, err := volume.ScanStatements([]volume.Set{interior, border})
	if err != nil {
		panic(err)
	}
	names := []string{"Dense", "Border"}
	fmt.Print(volume.C(ast, []string{"h", "w"}, func(k int) string { return names[k] }))
	// Output:
	// for (int w = 0; w <= 3; w += 1)
	//   Border(0, w);
	// for (int h = 1; h <= 2; h += 1) {
	//   Border(h, 0);
	//   for (int w = 1; w <= 2; w += 1)
	//     Dense(h, w);
	//   Border(h, 3);
	// }
	// for (int w = 0; w <= 3; w += 1)
	//   Border(3, w);
}

func ExampleWalk() {
	s := volume.MustParseSet("{ S[i, j] : 0 <= i < 3 and j = 2i }")
	ast, _ := s.Scan()
	_ = volume.Walk(ast, 2, nil, func(stmt int, x []int64) { fmt.Println(stmt, x) })
	// Output:
	// 0 [0 0]
	// 0 [1 2]
	// 0 [2 4]
}
