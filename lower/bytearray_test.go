package lower

import (
	"math/rand/v2"
	"testing"

	"github.com/llir/llvm/ir/constant"
	"github.com/stretchr/testify/require"
)

// TestByteArrayMatchesLLIR checks that byteArray prints every byte as llir's CharArray does.
func TestByteArrayMatchesLLIR(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	cases := [][]byte{all, {}, []byte(`a"b\c`)}
	for i := 0; i < 20; i++ {
		b := make([]byte, r.IntN(100))
		for k := range b {
			b[k] = byte(r.IntN(256))
		}
		cases = append(cases, b)
	}
	for _, b := range cases {
		want := constant.NewCharArray(b)
		got := newByteArray(b)
		require.Equal(t, want.String(), got.String())
		require.True(t, want.Type().Equal(got.Type()))
	}
}
