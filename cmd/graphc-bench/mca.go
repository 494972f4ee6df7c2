// This file is graphc-bench's -mca mode: the AArch64 kernels' hot loops as llvm-mca predicts
// them on named Arm CPUs (internal/mca), beside the peak of their arithmetic. qemu's timings
// mean nothing, so this is the benchmark table of the AArch64 target.

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/graphc/graphc/internal/mca"
)

// runMCA prints, for each CPU of cpus (comma-separated) and each standard kernel, llvm-mca's
// predicted cycles per iteration of the hot loop against the CPU model's peak.
func runMCA(ctx context.Context, cpus string) error {
	fmt.Println("| CPU | kernel | cycles/iteration | peak | arithmetic / instructions | predicted / peak |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, cpu := range strings.Split(cpus, ",") {
		for _, k := range mca.Kernels() {
			r, err := mca.Measure(ctx, k, cpu)
			if err != nil {
				return err
			}
			fmt.Printf("| %s | %s | %.1f | %.1f | %d / %d | %.2f× |\n", cpu, k.Name, r.Cycles, r.Peak, r.Count, r.Instructions, r.Ratio())
		}
	}
	return nil
}
