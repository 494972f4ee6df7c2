// This file holds the fuzz target of the calculator (`graphc calc`), seeded with the programs of
// the calculator's tests, the CLI's tests and the README.

package calc

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/graphc/graphc/internal/fuzzcheck"
	"github.com/graphc/graphc/volume"
)

// seedPrograms are the calculator programs the tests and the README run.
var seedPrograms = []string{
	"{ [i] : 0 <= i < 10 } * { [i] : i >= 5 }",
	"{ [i] : 0 <= i < 3 } + { [i] : 3 <= i < 5 }",
	"{ [i] : 0 <= i < 10 } - { [i] : i mod 2 = 0 }",
	"M := { A[i] -> B[2i] }; M({ A[i] : 0 <= i < 3 })",
	"{ A[i] -> B[2i] }^-1",
	"dom { A[i] -> B[j] : 0 <= i < j < 4 }",
	"ran { A[i] -> B[j] : 0 <= i < j < 4 }",
	"{ A[i] -> B[i + 1] } . { B[j] -> C[2j] }",
	"{ A[i] -> B[i] } * { A[i] : i > 0 }",
	"lexmin { A[i, j] : 0 <= i < 3 and 1 <= j < 3; B[k] : k >= 7 }",
	"lexmax { A[i, j] : 0 <= i < 3 and 1 <= j < 3 and i + j < 4 }",
	"coalesce ({ [i] : 0 <= i < 3 } + { [i] : 3 <= i < 5 })",
	"[N] -> { [i] : 0 <= i < N } * [N] -> { [i] : i >= N - 2 }",
	"A := { [i] : 0 <= i < 5 }; B := { [i] : 0 <= i < 9 }; A <= B; B <= A; A < B; B >= A; A = B; card A",
	"A := { [i] };\n  B",
	"card { [i] : i >= 0 }",
	"{ [i] } { [j] }",
	"{ [i] } $",
	`A := [N] -> { S[i, j] : 0 <= i < N and i <= j < N and exists (e : i + j = 2e) };
		B := [N] -> { S[i, j] : j < 3 };
		A * B; A + B; A - B; A - B + A * B = A; A * B <= A; A <= A * B`,
	`M := { A[i, j] -> B[i + 1, 2j] }; S := { A[i, j] : 0 <= i, j < 3 };
		M(S); M^-1; dom M; ran (M * S); M . { B[x, y] -> C[x + y] }; M^-1^-1 = M; dom (M * S) = S`,
	`S := { A[i, j] : 0 <= i < 4 and 0 <= j < 5 and (i + j) mod 2 = 0; B[k] : 3 <= k <= 9 };
		card S; lexmin S; lexmax S; sample S <= S; card { [i] : 0 <= i < 1099511627776 }`,
	"# a comment\nT := { [i] : 0 <= i < 10 };\ncard T;\n",
	"card [N] -> { [i] : 0 <= i < N }",
	"{ [i] } <= { A[i] -> B[i] }",
	"codegen { S[i, j] : 0 <= i < 6 and i <= j < 6 and (i + j) mod 3 = 0 }",
	"S := { [i, j] : 0 <= i < 4 and i <= j < 4 }; card S",
	"{ [i, j, k] -> [i, k] }({ [i, j, k] : 0 <= i <= j < 8 and 0 <= k < 8 })",
	"codegen [N] -> { [i, j] : 0 <= i < N and i <= j < N }",
	"sample [N] -> { S[i] : 0 <= i < N and i mod 3 = 2 }",
	"codegen { A[i] : 0 <= i < 4; B[i, j] : 0 <= i < 3 and 0 <= j <= i }",
}

// calcTimeLimit bounds one program: the seeds take milliseconds, so a program that runs this
// long has found super-linear work (a hang, for a user: neither calc nor volume takes a context
// or a work budget, so the program cannot be stopped more gently).
const calcTimeLimit = 10 * time.Second

// FuzzRun runs calculator programs: Run must return a value or an error (never a panic nor an
// error wrapping volume.ErrInternal, a bug) within calcTimeLimit.
func FuzzRun(f *testing.F) {
	for _, p := range seedPrograms {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, src string) {
		defer fuzzcheck.Watchdog(calcTimeLimit)()
		if err := Run(src, io.Discard); errors.Is(err, volume.ErrInternal) {
			t.Fatalf("volume reported a bug: %v\nprogram: %q", err, src)
		}
	})
}
