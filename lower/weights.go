// This file keeps a graph's constants out of the module (Config.ExternalWeights): they are laid
// out in a weights file that the caller maps and passes to the entry as one more argument, so
// that the module holds code only and a model's size is bounded by the machine, not by what
// an assembler or linker takes as initialised data.
//
// The file: a 128-byte header ("GRAPHCW1", the file's size and the layout's fingerprint as
// little-endian uint64 at bytes 8 and 16, zeros to byte 128), then each constant's bytes in
// the ABI layout at a 128-byte aligned offset, zero padding between them. The entry checks the
// magic and the fingerprint (status 4 on a mismatch): a file written for another layout is
// refused rather than read as weights. Weights of the same layout (another training run of the
// model) may replace each other.

package lower

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/graphc/graphc/ir"
)

// statusBadWeights is returned by an entry whose weights argument is not a weights file of its
// layout (wrong magic or fingerprint).
const statusBadWeights = 4

// WeightsMagic starts every weights file.
const WeightsMagic = "GRAPHCW1"

// weightsHeader is the size of the header, and the alignment of every constant.
const weightsHeader = wsAlign

// Weights is the layout of an entry's weights file (Config.ExternalWeights).
type Weights struct {
	// Size is the file's size in bytes; Fingerprint identifies the layout (each constant's
	// element type, shape and offset).
	Size        int64
	Fingerprint uint64
	// Consts are the graph's constants in file order, at Offsets.
	Consts  []*ir.Value
	Offsets []int64
}

// layoutWeights places g's constants after the header, each 128-byte aligned.
func layoutWeights(g *ir.Graph) *Weights {
	w := &Weights{}
	h := fnv.New64a()
	off := int64(weightsHeader)
	for _, c := range g.Consts {
		n := int64(c.Data.Len()) * int64(c.Data.Elem.Size())
		w.Consts = append(w.Consts, c)
		w.Offsets = append(w.Offsets, off)
		fmt.Fprintf(h, "%s%v@%d;", c.Data.Elem, c.Data.Shape, off)
		off += (n + weightsHeader - 1) / weightsHeader * weightsHeader
	}
	w.Size = off
	w.Fingerprint = h.Sum64()
	return w
}

// WriteTo writes the weights file: the header, then each constant's bytes (straight from its
// tensor: a weight kept as its model's bytes is not copied).
func (w *Weights) WriteTo(out io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(out, 1<<20)
	var n int64
	write := func(p []byte) error {
		k, err := bw.Write(p)
		n += int64(k)
		return err
	}
	var hdr [weightsHeader]byte
	copy(hdr[:], WeightsMagic)
	binary.LittleEndian.PutUint64(hdr[8:], uint64(w.Size))
	binary.LittleEndian.PutUint64(hdr[16:], w.Fingerprint)
	if err := write(hdr[:]); err != nil {
		return n, err
	}
	var zeros [weightsHeader]byte
	for i, c := range w.Consts {
		if pad := w.Offsets[i] - n; pad > 0 {
			if err := write(zeros[:pad]); err != nil {
				return n, err
			}
		}
		if err := write(c.Data.Bytes()); err != nil {
			return n, err
		}
	}
	if pad := w.Size - n; pad > 0 {
		if err := write(zeros[:pad]); err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// weightsParam adds the entry's weights argument.
func weightsParam() *llvm.Param {
	p := llvm.NewParam("weights", types.I8Ptr)
	p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias, enum.ParamAttrNoCapture, enum.ParamAttrReadOnly)
	return p
}

// checkWeights makes the entry return statusBadWeights unless the weights argument starts
// with the magic and this layout's fingerprint.
func (ec *entryCtx) checkWeights(fb *funcBuilder, wp value.Value) {
	p64 := fb.cur.NewBitCast(wp, types.NewPointer(types.I64))
	magic := fb.cur.NewLoad(types.I64, p64)
	magic.Align = 8
	fp := fb.cur.NewLoad(types.I64, fb.cur.NewGetElementPtr(types.I64, p64, i64(2)))
	fp.Align = 8
	okMagic := fb.cur.NewICmp(enum.IPredEQ, magic, constant.NewInt(types.I64, int64(binary.LittleEndian.Uint64([]byte(WeightsMagic)))))
	okFP := fb.cur.NewICmp(enum.IPredEQ, fp, constant.NewInt(types.I64, int64(ec.weights.Fingerprint)))
	ok := fb.cur.NewAnd(okMagic, okFP)
	next := fb.newBlock("weights.ok")
	fb.cur.NewCondBr(ok, next, fb.failBlock(statusBadWeights))
	fb.cur = next
}

// weightPtr returns the address of constant c in the weights argument.
func (ec *entryCtx) weightPtr(fb *funcBuilder, wp value.Value, c *ir.Value) value.Value {
	off, ok := ec.weightOff[c]
	if !ok {
		panic(fmt.Sprintf("constant %%%s has no place in the weights file", c.Name))
	}
	return fb.cur.NewBitCast(fb.cur.NewGetElementPtr(types.I8, wp, i64(off)), types.NewPointer(mustMemType(c.Type.Elem)))
}
