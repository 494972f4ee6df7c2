// Command gen regenerates the bundled example models in testdata/models:
//
//	go run ./testdata/models/gen
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// nonZero is the coordinates of the non-zero elements of a 4×6 input: an output whose extent
// the data decides (a bounded dim; the README's second C caller).
func nonZero() *onnxgen.Model {
	m := onnxgen.New("nonzero", 13)
	m.Input("X", ir.F32, 4, 6)
	m.Node("NonZero", "nonzero", []string{"X"}, []string{"Y"})
	m.Output("Y", ir.I64, 2, "n")
	return m
}

func main() {
	dir := "testdata/models"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	models := map[string]*onnxgen.Model{
		"matmul_trilu.onnx": onnxgen.MatMulTrilu(512, true),
		"nonzero.onnx":      nonZero(),
	}
	for name, m := range models {
		if err := m.Write(filepath.Join(dir, name)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
