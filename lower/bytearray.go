// This file holds byteArray, the constant of a tensor's bytes: it prints as LLVM's c"..."
// string literal like llir's CharArray, with a table-driven escape that is an order of
// magnitude faster (llir's formats every byte through fmt; weights are most of a module).

package lower

import (
	"strings"

	"github.com/llir/llvm/ir/types"
)

// byteArray is a constant [n x i8].
type byteArray struct {
	typ  *types.ArrayType
	data []byte
}

func newByteArray(data []byte) *byteArray {
	return &byteArray{typ: types.NewArray(uint64(len(data)), types.I8), data: data}
}

// String returns the constant with its type, as an operand.
func (c *byteArray) String() string { return c.typ.String() + " " + c.Ident() }

// Type returns [n x i8].
func (c *byteArray) Type() types.Type { return c.typ }

// Ident returns c"..." with printable characters other than " and \ as themselves and every
// other byte as \XX.
func (c *byteArray) Ident() string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	sb.Grow(3 + 3*len(c.data))
	sb.WriteString(`c"`)
	for _, b := range c.data {
		if b >= ' ' && b <= '~' && b != '"' && b != '\\' {
			sb.WriteByte(b)
			continue
		}
		sb.WriteByte('\\')
		sb.WriteByte(hex[b>>4])
		sb.WriteByte(hex[b&15])
	}
	sb.WriteByte('"')
	return sb.String()
}

// IsConstant marks byteArray as a constant.
func (*byteArray) IsConstant() {}
