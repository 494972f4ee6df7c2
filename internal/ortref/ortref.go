// Package ortref runs an ONNX model with onnxruntime-node (one thread) on given inputs, through
// the repository's models/ort_reference.js, so that tests can compare graphc with onnxruntime
// on random inputs of any model they write. It needs node and onnxruntime-node in
// graphc-bench's cache (~/.cache/graphc-bench/ort, installed by `graphc-bench` on first use);
// Missing says why it cannot run, and tests skip with that reason.
package ortref

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/graphc/graphc/ir"
)

// ortTypes are onnxruntime-node's names of the element types ort_reference.js reads and writes.
var ortTypes = map[ir.DType]string{
	ir.F32: "float32", ir.F64: "float64", ir.I64: "int64", ir.I32: "int32", ir.I16: "int16",
	ir.U16: "uint16", ir.I8: "int8", ir.U8: "uint8", ir.Bool: "bool",
}

// TypeName returns onnxruntime-node's name of elem ("float32") and whether it has one.
func TypeName(elem ir.DType) (string, bool) {
	n, ok := ortTypes[elem]
	return n, ok
}

// InputSpec is one input in the spec file that models/ort_reference.js (and graphc-bench's
// session script) read: the graph input's name, its onnxruntime-node type and shape, and the
// file holding its raw little-endian data.
type InputSpec struct {
	Name  string  `json:"name"`
	Type  string  `json:"type"`
	Shape []int64 `json:"shape"`
	File  string  `json:"file"`
}

// WriteInputs writes inputs (the graph inputs named names, in that order) to dir as
// in_<k>.bin and their spec to dir/spec.json, and returns the spec's path.
func WriteInputs(dir string, names []string, inputs []*ir.Tensor) (string, error) {
	if len(names) != len(inputs) {
		return "", fmt.Errorf("ortref: %d names for %d inputs", len(names), len(inputs))
	}
	specs := []InputSpec{}
	for k, t := range inputs {
		typ, ok := ortTypes[t.Elem]
		if !ok {
			return "", fmt.Errorf("ortref: input %s: element type %s", names[k], t.Elem)
		}
		f := filepath.Join(dir, fmt.Sprintf("in_%d.bin", k))
		if err := os.WriteFile(f, t.Bytes(), 0o644); err != nil {
			return "", err
		}
		// a scalar's shape is [], not null
		specs = append(specs, InputSpec{Name: names[k], Type: typ, Shape: append([]int64{}, t.Shape...), File: f})
	}
	data, err := json.Marshal(specs)
	if err != nil {
		return "", err
	}
	specPath := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specPath, data, 0o644); err != nil {
		return "", err
	}
	return specPath, nil
}

// nodeModules returns the directory holding onnxruntime-node.
func nodeModules() string {
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "graphc-bench", "ort", "node_modules")
}

// script returns models/ort_reference.js of the repository around the working directory.
func script() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "models", "ort_reference.js")
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("ortref: no %s", p)
			}
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("ortref: no repository (go.mod) above the working directory")
		}
		dir = up
	}
}

// Missing returns why Run cannot work here ("" when it can).
func Missing() string {
	if _, err := exec.LookPath("node"); err != nil {
		return "node is not installed"
	}
	if _, err := os.Stat(filepath.Join(nodeModules(), "onnxruntime-node")); err != nil {
		return "onnxruntime-node is not installed (graphc-bench installs it on first use)"
	}
	if _, err := script(); err != nil {
		return err.Error()
	}
	return ""
}

// Run runs model on inputs (the graph inputs named names, in that order) and returns its
// outputs in graph order.
func Run(ctx context.Context, model string, names []string, inputs []*ir.Tensor) ([]*ir.Tensor, error) {
	js, err := script()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "ortref")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	specPath, err := WriteInputs(dir, names, inputs)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "node", js, model, specPath, dir)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules())
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("ortref: onnxruntime on %s: %w: %s", model, err, strings.TrimSpace(string(out)))
	}
	var outs []*ir.Tensor
	for k := 0; ; k++ {
		meta, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out_%d.json", k)))
		if os.IsNotExist(err) {
			break
		} else if err != nil {
			return nil, err
		}
		var m struct {
			Type  string  `json:"type"`
			Shape []int64 `json:"shape"`
		}
		if err := json.Unmarshal(meta, &m); err != nil {
			return nil, fmt.Errorf("ortref: output %d: %w", k, err)
		}
		elem := ir.Invalid
		for d, n := range ortTypes {
			if n == m.Type {
				elem = d
			}
		}
		if elem == ir.Invalid {
			return nil, fmt.Errorf("ortref: output %d: element type %q", k, m.Type)
		}
		raw, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("out_%d.bin", k)))
		if err != nil {
			return nil, err
		}
		t, err := ir.TensorFromBytes(elem, m.Shape, raw)
		if err != nil {
			return nil, fmt.Errorf("ortref: output %d: %w", k, err)
		}
		outs = append(outs, t)
	}
	return outs, nil
}
