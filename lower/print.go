// This file prints modules. Weights are most of a module's text (12.5 MB of the 19 MB of a
// 1,000-op MLP before kernel sharing), and llir copies each global's text five times through
// fmt and growing builders; the byte-array globals are therefore written here, straight into
// the output, and llir prints everything else. The text is the same as llir's (tested).

package lower

import (
	"bufio"
	"io"
	"os"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/enum"
)

// String returns the textual LLVM IR.
func (m *Module) String() string {
	var sb strings.Builder
	sb.Grow(m.sizeHint())
	if _, err := m.WriteTo(&sb); err != nil {
		panic(err) // a strings.Builder does not fail
	}
	return sb.String()
}

// WriteFile writes the textual LLVM IR to the file at path, streamed through a small buffer.
// The text of the weights is about 3.5 bytes per byte (VGG-11's 531 MB print as 1.18 GB):
// os.WriteFile(path, []byte(m.String())) holds it twice in the heap (the string and its copy),
// 2.4 GB more than the module for VGG-11.
func (m *Module) WriteFile(path string) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	if _, err := m.WriteTo(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// sizeHint is a lower bound of the size of the module's text: its weights' escaped bytes and
// a guess for the code.
func (m *Module) sizeHint() int {
	n := 1 << 16
	for _, g := range m.LLVM.Globals {
		if c, ok := g.Init.(*byteArray); ok {
			n += c.escapedLen() + 128
		}
	}
	for _, f := range m.LLVM.Funcs {
		for _, b := range f.Blocks {
			n += 48 * (len(b.Insts) + 1)
		}
	}
	return n
}

// WriteTo writes the textual LLVM IR to w.
func (m *Module) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	mod := m.LLVM
	if !fastPrintable(mod) {
		return mod.WriteTo(w)
	}
	// llir prints the header, then the globals, then the rest; each section after the first
	// non-empty one is preceded by an empty line
	head := llvm.NewModule()
	head.SourceFilename, head.DataLayout, head.TargetTriple = mod.SourceFilename, mod.DataLayout, mod.TargetTriple
	head.ModuleAsms, head.TypeDefs, head.ComdatDefs = mod.ModuleAsms, mod.TypeDefs, mod.ComdatDefs
	if _, err := head.WriteTo(cw); err != nil {
		return cw.n, err
	}
	if len(mod.Globals) > 0 && cw.n > 0 {
		cw.writeString("\n")
	}
	var buf []byte
	for _, g := range mod.Globals {
		c, ok := g.Init.(*byteArray)
		if !ok || !plainConstant(g) {
			cw.writeString(g.LLString())
			cw.writeString("\n")
			continue
		}
		cw.writeString(g.Ident() + " = " + g.Linkage.String() + " constant " + g.ContentType.String() + " ")
		buf = c.writeIdent(cw, buf)
		if g.Align != 0 {
			cw.writeString(", " + g.Align.String())
		}
		cw.writeString("\n")
	}
	rest := llvm.NewModule()
	rest.Funcs, rest.AttrGroupDefs = mod.Funcs, mod.AttrGroupDefs
	rest.NamedMetadataDefs, rest.MetadataDefs = mod.NamedMetadataDefs, mod.MetadataDefs
	rest.UseListOrders, rest.UseListOrderBBs = mod.UseListOrders, mod.UseListOrderBBs
	if len(mod.Funcs) > 0 && cw.n > 0 {
		cw.writeString("\n")
	}
	if cw.err != nil {
		return cw.n, cw.err
	}
	_, err := rest.WriteTo(cw)
	return cw.n, err
}

// fastPrintable reports whether WriteTo may print the module in parts: every global is named
// (unnamed ones are numbered across the module), there are no aliases or ifuncs (printed
// between the globals and the functions) and the first section after the globals is the
// functions.
func fastPrintable(m *llvm.Module) bool {
	if len(m.Aliases) > 0 || len(m.IFuncs) > 0 || len(m.Funcs) == 0 {
		return false
	}
	for _, g := range m.Globals {
		if g.IsUnnamed() {
			return false
		}
	}
	return true
}

// plainConstant reports whether g prints as "@name = LINKAGE constant TYPE INIT[, align N]".
func plainConstant(g *llvm.Global) bool {
	return g.Immutable && g.Linkage != enum.LinkageNone && g.Preemption == enum.PreemptionNone &&
		g.Visibility == enum.VisibilityNone && g.DLLStorageClass == enum.DLLStorageClassNone &&
		g.TLSModel == enum.TLSModelNone && g.UnnamedAddr == enum.UnnamedAddrNone && g.AddrSpace == 0 &&
		!g.ExternallyInitialized && g.Section == "" && g.Partition == "" && g.Comdat == nil &&
		len(g.Metadata) == 0 && len(g.FuncAttrs) == 0
}

// countWriter counts the bytes written and keeps the first error.
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (cw *countWriter) Write(p []byte) (int, error) {
	if cw.err != nil {
		return 0, cw.err
	}
	n, err := cw.w.Write(p)
	cw.n += int64(n)
	cw.err = err
	return n, err
}

func (cw *countWriter) write(p []byte) { _, _ = cw.Write(p) }

func (cw *countWriter) writeString(s string) {
	if cw.err != nil {
		return
	}
	n, err := io.WriteString(cw.w, s)
	cw.n += int64(n)
	cw.err = err
}
