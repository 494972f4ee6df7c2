package graphc_test

// This file finds, for a detector, images in the three regimes issue 35 asks a detector to be
// checked in: one where no box survives, one with some boxes and one where the output's bound is
// reached. The images are simple ones (constants, random noise at several contrasts, a random
// patch on a gray background) classified by onnxruntime's box count: no knowledge of the model
// is needed beyond its input shape and its output's bound.

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/graphc/graphc/internal/ortref"
	"github.com/graphc/graphc/internal/realmodel"
	"github.com/graphc/graphc/ir"
)

// candidateImage is one image of the search, made for an input of shape [1, C, H, W].
type candidateImage struct {
	name string
	make func(shape []int64) *ir.Tensor
}

// fill returns an f32 tensor of shape whose element at (c, y, x) of the first image is f(c, y, x).
func fill(shape []int64, f func(c, y, x int) float64) *ir.Tensor {
	t := ir.NewTensor(ir.F32, shape)
	c, h, w := int(shape[1]), int(shape[2]), int(shape[3])
	for ci := 0; ci < c; ci++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				t.F[(ci*h+y)*w+x] = float64(float32(f(ci, y, x)))
			}
		}
	}
	return t
}

// candidates lists the images tried, in order: flat images (which usually leave no box),
// random patches of growing size on gray (a few boxes), and noise at growing contrast (many).
func candidates() []candidateImage {
	var cs []candidateImage
	for _, v := range []float64{0, 0.5, 1} {
		cs = append(cs, candidateImage{fmt.Sprintf("flat %g", v), func(s []int64) *ir.Tensor {
			return fill(s, func(int, int, int) float64 { return v })
		}})
	}
	for _, frac := range []int{8, 4, 2} {
		cs = append(cs, candidateImage{fmt.Sprintf("noise patch 1/%d on gray", frac), func(s []int64) *ir.Tensor {
			r := rand.New(rand.NewPCG(uint64(frac), 7))
			h, w := int(s[2]), int(s[3])
			y0, x0 := h/2-h/(2*frac), w/2-w/(2*frac)
			return fill(s, func(_, y, x int) float64 {
				v := r.Float64() // drawn for every pixel: the patch does not depend on its size
				if y >= y0 && y < y0+h/frac && x >= x0 && x < x0+w/frac {
					return v
				}
				return 0.5
			})
		}})
	}
	for _, contrast := range []float64{0.05, 0.2, 1, 4, 16} {
		cs = append(cs, candidateImage{fmt.Sprintf("noise, contrast %g", contrast), func(s []int64) *ir.Tensor {
			r := rand.New(rand.NewPCG(11, 13))
			return fill(s, func(int, int, int) float64 { return 0.5 + contrast*(r.Float64()-0.5) })
		}})
	}
	return cs
}

// regimeSets runs onnxruntime on the candidate images for detector m (one image input of shape
// [1, C, H, W]; outputs boxes [n, 4], scores [n], labels [n]) until, with m's stored sets, it
// has one with no box, one with 0 < n < bound and one with n = bound, and returns the images
// it added as data sets with onnxruntime's outputs (an error says which regimes no image
// covers). With an image of no box and one at the bound but none in between, it bisects
// their blend.
func regimeSets(ctx context.Context, m *realmodel.Model, shape []int64, bound int64) ([]realmodel.DataSet, error) {
	if len(shape) != 4 || shape[0] != 1 {
		return nil, fmt.Errorf("%s: input shape %v, want [1, C, H, W]", m.Name, shape)
	}
	var sets [3]*realmodel.DataSet
	tried := ""
	// try runs onnxruntime on in and keeps it as its regime's image if it is the first
	try := func(name string, in *ir.Tensor) (int64, error) {
		outs, err := ortref.Run(ctx, m.Path, m.InputNames, []*ir.Tensor{in})
		if err != nil {
			return 0, err
		}
		if len(outs) < 3 || len(outs[1].Shape) != 1 {
			return 0, fmt.Errorf("%s: onnxruntime's outputs are not boxes, scores, labels", m.Name)
		}
		n := outs[1].Shape[0]
		tried += fmt.Sprintf(" %s: %d;", name, n)
		k := 1
		switch {
		case n == 0:
			k = 0
		case n == bound:
			k = 2
		case n > bound:
			return 0, fmt.Errorf("%s %s: onnxruntime gives %d boxes, above graphc's bound %d", m.Name, name, n, bound)
		}
		if sets[k] == nil {
			sets[k] = &realmodel.DataSet{Name: fmt.Sprintf("%s (%d boxes)", name, n), Inputs: []*ir.Tensor{in}, Outputs: outs[:3]}
		}
		return n, nil
	}
	// the stored images (random ones) first: the search adds the regimes they miss
	stored := map[int]bool{}
	image := [3]*ir.Tensor{} // an image of each regime, stored or found
	for _, set := range m.Sets {
		n := set.Outputs[1].Shape[0]
		k := 1
		if n == 0 {
			k = 0
		} else if n == bound {
			k = 2
		}
		stored[k] = true
		image[k] = set.Inputs[0].Decoded()
		tried += fmt.Sprintf(" %s: %d;", set.Name, n)
	}
	for _, c := range candidates() {
		if (stored[0] || sets[0] != nil) && (stored[1] || sets[1] != nil) && (stored[2] || sets[2] != nil) {
			break
		}
		if _, err := try(c.name, c.make(shape)); err != nil {
			return nil, err
		}
	}
	// no image in between: bisect the blend of the image without boxes and the one at the bound
	for k, s := range sets {
		if s != nil && image[k] == nil {
			image[k] = s.Inputs[0]
		}
	}
	if image[1] == nil && image[0] != nil && image[2] != nil {
		z, b := image[0], image[2]
		lo, hi := 0.0, 1.0
		for i := 0; i < 10 && sets[1] == nil; i++ { // count 0 below w, the bound above
			w := (lo + hi) / 2
			in := ir.NewTensor(ir.F32, shape)
			for j := range in.F {
				in.F[j] = float64(float32(z.F[j] + w*(b.F[j]-z.F[j])))
			}
			n, err := try(fmt.Sprintf("blend %g", w), in)
			if err != nil {
				return nil, err
			}
			if n == 0 {
				lo = w
			} else {
				hi = w
			}
		}
	}
	var found []realmodel.DataSet
	covered := 0
	for k, s := range sets {
		if s != nil && !stored[k] {
			found = append(found, *s)
		}
		if s != nil || stored[k] {
			covered++
		}
	}
	if covered < 3 {
		return found, fmt.Errorf("%s: the stored and candidate images cover %d of the 3 regimes (none, some, %d boxes):%s", m.Name, covered, bound, tried)
	}
	return found, nil
}
