// Command gen regenerates the bundled example models in testdata/models:
//
//	go run ./testdata/models/gen
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/graphc/graphc/internal/onnxgen"
)

func main() {
	dir := "testdata/models"
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	models := map[string]*onnxgen.Model{
		"matmul_trilu.onnx": onnxgen.MatMulTrilu(512, true),
	}
	for name, m := range models {
		if err := m.Write(filepath.Join(dir, name)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
