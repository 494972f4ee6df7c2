// This file holds byteArray, the constant of a tensor's bytes: it prints as LLVM's c"..."
// string literal like llir's CharArray, with a table-driven escape that is an order of
// magnitude faster (llir's formats every byte through fmt; weights are most of a module).

package lower

import (
	"encoding/binary"
	"slices"
	"strings"

	"github.com/llir/llvm/ir/types"
)

// byteArray is a constant [n x i8]: data, or, when gen is set, the n bytes that gen returns
// each time the constant is printed (weights packed at compile time are computed then, and
// dropped after, rather than held beside the graph's constants for the whole lowering).
type byteArray struct {
	typ  *types.ArrayType
	data []byte
	gen  func() []byte
}

func newByteArray(data []byte) *byteArray {
	return &byteArray{typ: types.NewArray(uint64(len(data)), types.I8), data: data}
}

// newLazyByteArray returns the constant of the n bytes gen returns.
func newLazyByteArray(n int64, gen func() []byte) *byteArray {
	return &byteArray{typ: types.NewArray(uint64(n), types.I8), gen: gen}
}

// bytes returns the constant's bytes.
func (c *byteArray) bytes() []byte {
	if c.gen != nil {
		return c.gen()
	}
	return c.data
}

// String returns the constant with its type, as an operand.
func (c *byteArray) String() string { return c.typ.String() + " " + c.Ident() }

// Type returns [n x i8].
func (c *byteArray) Type() types.Type { return c.typ }

// Ident returns c"..." with printable characters other than " and \ as themselves and every
// other byte as \XX.
func (c *byteArray) Ident() string {
	d := c.bytes()
	var sb strings.Builder
	sb.Grow(escapedLen(d))
	sb.WriteString(`c"`)
	buf := make([]byte, 0, min(escapeChunk, 3*len(d)))
	for data := d; len(data) > 0; {
		n := min(len(data), escapeChunk/3)
		buf = appendEscaped(buf[:0], data[:n])
		sb.Write(buf)
		data = data[n:]
	}
	sb.WriteByte('"')
	return sb.String()
}

// writeIdent writes Ident's text to w, through buf (returned for reuse).
func (c *byteArray) writeIdent(w *countWriter, buf []byte) []byte {
	w.writeString(`c"`)
	for data := c.bytes(); len(data) > 0; {
		n := min(len(data), escapeChunk/3)
		buf = appendEscaped(buf[:0], data[:n])
		w.write(buf)
		data = data[n:]
	}
	w.writeString(`"`)
	return buf
}

// escapeChunk bounds the escaped bytes produced at once.
const escapeChunk = 1 << 16

// escapes holds, per byte, its escaped text packed little-endian in the low bytes and its
// length in the top byte: a printable character other than " and \ is itself, every other byte
// is \XX.
var escapes = func() (t [256]uint32) {
	const hex = "0123456789ABCDEF"
	for i := range t {
		b := byte(i)
		if b >= ' ' && b <= '~' && b != '"' && b != '\\' {
			t[i] = uint32(b) | 1<<24
		} else {
			t[i] = '\\' | uint32(hex[b>>4])<<8 | uint32(hex[b&15])<<16 | 3<<24
		}
	}
	return t
}()

// escapedLen returns the length of Ident's text; of a generated constant, a lower bound (its
// bytes are not generated for it).
func (c *byteArray) escapedLen() int {
	if c.gen != nil {
		return 3 + int(c.typ.Len)
	}
	return escapedLen(c.data)
}

// escapedLen returns the length of the escaped text of data, quotes included.
func escapedLen(data []byte) int {
	n := 3
	for _, b := range data {
		n += int(escapes[b] >> 24)
	}
	return n
}

// appendEscaped appends the escaped text of data to dst. Every byte stores four (the escape and
// its length byte) and advances by the escape's length, without a branch: random weights make
// a branch on printable bytes mispredict a third of the time.
func appendEscaped(dst, data []byte) []byte {
	j := len(dst)
	dst = slices.Grow(dst, 3*len(data)+1)[:j+3*len(data)+1]
	for _, b := range data {
		e := escapes[b]
		binary.LittleEndian.PutUint32(dst[j:], e)
		j += int(e >> 24)
	}
	return dst[:j]
}

// IsConstant marks byteArray as a constant.
func (*byteArray) IsConstant() {}
