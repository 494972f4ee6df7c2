// Command ortdiff runs a model's first test data set through graphc's reference evaluator and
// through onnxruntime (internal/ortref) with every intermediate tensor exposed as a graph
// output, and prints the tensors where they differ, in graph order: where a model's outputs
// diverge from onnxruntime's, the first line names the first tensor that does.
//
//	/usr/bin/python3 models/all_outputs.py ROOT/NAME/model.onnx /tmp/all.onnx
//	go run ./xtools/ortdiff -root ROOT -name NAME -all /tmp/all.onnx -cache /tmp/all.gob [-trace]
//
// -cache keeps both runs' tensors (FILE and FILE.eval; delete them to run again). -trace prints
// every tensor's largest difference relative to its largest magnitude: how an error grows
// layer by layer (issue 35: Faster R-CNN's rounding differences amplified by its
// squeeze-excitation gates). Run it from the repository (ortref finds models/ort_reference.js).
package main

import (
	"context"
	"encoding/gob"
	"flag"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/graphc/graphc"
	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/ir/eval"
)

type saved struct {
	Elem  ir.DType
	Shape []int64
	Raw   []byte
}

func main() {
	root := flag.String("root", "", "model root")
	name := flag.String("name", "", "model")
	all := flag.String("all", "", "model with all outputs")
	cache := flag.String("cache", "", "gob of ort outputs")
	max := flag.Int("max", 30, "divergences to print")
	tol := flag.Float64("tol", 1e-3, "relative tolerance")
	trace := flag.Bool("trace", false, "relative error of every tensor")
	verbose := flag.Bool("v", false, "list missing")
	flag.Parse()
	ctx := context.Background()
	m, err := realmodel.Load(*root, *name)
	check(err)
	in := m.Sets[0].Inputs[0]
	names := strings.Split(string(must(os.ReadFile(*all+".names"))), "\n")
	ort := map[string]*ir.Tensor{}
	if f, err := os.Open(*cache); err == nil {
		var s map[string]saved
		check(gob.NewDecoder(f).Decode(&s))
		for k, v := range s {
			ort[k] = must(ir.TensorFromBytes(v.Elem, v.Shape, v.Raw))
		}
	} else {
		outs, err := ortref.Run(ctx, *all, m.InputNames, []*ir.Tensor{in})
		check(err)
		s := map[string]saved{}
		for k, t := range outs {
			ort[names[k]] = t
			s[names[k]] = saved{t.Elem, t.Shape, t.Bytes()}
		}
		f, err := os.Create(*cache)
		check(err)
		check(gob.NewEncoder(f).Encode(s))
		f.Close()
	}
	byName := map[string]*ir.Tensor{}
	if f, err := os.Open(*cache + ".eval"); err == nil {
		var s map[string]saved
		check(gob.NewDecoder(f).Decode(&s))
		for k, v := range s {
			byName[k] = must(ir.TensorFromBytes(v.Elem, v.Shape, v.Raw))
		}
	} else {
		g, err := graphc.Load(ctx, *all)
		check(err)
		// the graph names its input as the importer sanitised it (gpu_0/data_0 -> gpu_0_data_0)
		vals, err := eval.Run(g, map[string]*ir.Tensor{g.Inputs[0].Name: in})
		check(err)
		vals, err = e2e.TrimBounded(g, nil, vals)
		check(err)
		s := map[string]saved{}
		for k, t := range vals {
			if k >= len(names) {
				break
			}
			byName[names[k]] = t
			s[names[k]] = saved{t.Elem, t.Shape, t.Bytes()}
		}
		f, err := os.Create(*cache + ".eval")
		check(err)
		check(gob.NewEncoder(f).Encode(s))
		f.Close()
	}
	compared, missing := 0, 0
	defer func() { fmt.Println("compared", compared, "missing", missing) }()
	n := 0
	for _, nm := range names {
		w, ok := ort[nm]
		if !ok {
			continue
		}
		gt, ok := byName[nm]
		if !ok {
			missing++
			if *verbose {
				fmt.Println("missing", nm, w.Shape)
			}
			continue
		}
		compared++
		if *trace {
			fmt.Printf("%-90s %s\n", nm, rel(gt, w))
		}
		msg := cmp(gt, w, *tol)
		if msg != "" {
			fmt.Printf("%s: %s\n", nm, msg)
			n++
			if n >= *max {
				break
			}
		}
	}
	fmt.Println("compared; divergences printed:", n)
}

func cmp(g, w *ir.Tensor, tol float64) string {
	if g.Len() != w.Len() {
		return fmt.Sprintf("shape %v vs ort %v", g.Shape, w.Shape)
	}
	worst, wi := 0.0, -1
	scale := 0.0
	for i := 0; i < w.Len(); i++ {
		scale = math.Max(scale, math.Abs(w.Float(i)))
	}
	for i := 0; i < w.Len(); i++ {
		d := math.Abs(g.Float(i) - w.Float(i))
		if d > worst {
			worst, wi = d, i
		}
	}
	if worst > tol*math.Max(scale, 1e-6) {
		return fmt.Sprintf("shape %v max|d| %.3g at %d (g %.7g ort %.7g) scale %.3g", w.Shape, worst, wi, g.Float(wi), w.Float(wi), scale)
	}
	return ""
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func must[T any](v T, err error) T { check(err); return v }

func rel(g, w *ir.Tensor) string {
	if g.Len() != w.Len() {
		return "shape"
	}
	worst, scale := 0.0, 0.0
	for i := 0; i < w.Len(); i++ {
		scale = math.Max(scale, math.Abs(w.Float(i)))
		worst = math.Max(worst, math.Abs(g.Float(i)-w.Float(i)))
	}
	return fmt.Sprintf("%v rel %.2e (abs %.2e scale %.3g)", w.Shape, worst/math.Max(scale, 1e-30), worst, scale)
}
