// Package mca predicts the speed of emitted kernels on CPUs graphc cannot run natively: it
// takes the innermost loop of a kernel's assembly that does the arithmetic (fmla, sdot ...)
// and feeds it to llvm-mca (LLVM's machine-code analyzer, whose scheduling models cover the
// Cortex-A55/A76/A78/X1/X2 and Neoverse cores), which predicts the cycles per iteration. The
// figure is set against the peak of the same model: as many cycles as the loop's arithmetic
// instructions need at their reciprocal throughput, with nothing else in the way. qemu's
// timings mean nothing; these are what the benchmark table shows for AArch64.
package mca

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrNoMCA is returned when llvm-mca-19 (or GRAPHC_MCA) is not installed.
var ErrNoMCA = errors.New("llvm-mca not found")

// Loop is an innermost loop of an assembly listing: its header label, its lines (header to
// the branch back), how many of its instructions match the arithmetic of interest and how many
// distinct registers they accumulate into.
type Loop struct {
	Label string
	Lines []string
	Count int
	Accs  int
}

// HotLoop returns the main register tile's loop of asm: of the innermost loops (llc marks
// their headers "This Inner Loop Header") holding instructions that match instr, the one that
// accumulates into the most registers (the full tile, not a border tile of fewer columns that
// may be unrolled to as many instructions), then the one with the most of them; false when no
// loop holds one.
func HotLoop(asm string, instr *regexp.Regexp) (Loop, bool) {
	lines := strings.Split(asm, "\n")
	var best Loop
	for i, l := range lines {
		code, _, _ := strings.Cut(l, "//")
		label, ok := strings.CutSuffix(strings.TrimSpace(code), ":")
		if !ok || !strings.HasPrefix(label, ".LBB") || !innerHeader(lines, i) {
			continue
		}
		for j := i + 1; j < len(lines); j++ {
			f := strings.Fields(strings.SplitN(lines[j], "//", 2)[0])
			if len(f) >= 2 && strings.HasPrefix(f[0], "b") && f[len(f)-1] == label {
				lp := Loop{Label: label, Lines: lines[i+1 : j+1]}
				dst := map[string]bool{}
				for _, x := range lp.Lines {
					if instr.MatchString(x) {
						lp.Count++
						if f := strings.Fields(strings.SplitN(x, "//", 2)[0]); len(f) >= 2 {
							dst[strings.TrimSuffix(f[1], ",")] = true
						}
					}
				}
				lp.Accs = len(dst)
				if lp.Accs > best.Accs || lp.Accs == best.Accs && lp.Count > best.Count {
					best = lp
				}
				break
			}
		}
	}
	return best, best.Count > 0
}

// innerHeader reports whether the label at line i heads an innermost loop: llc's comment on
// the label's line or on the comment-only lines after it (one per enclosing loop) says so.
func innerHeader(lines []string, i int) bool {
	if strings.Contains(lines[i], "Inner Loop Header") {
		return true
	}
	for j := i + 1; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "//"); j++ {
		if strings.Contains(lines[j], "Inner Loop Header") {
			return true
		}
	}
	return false
}

// Report is llvm-mca's prediction for one loop on one CPU.
type Report struct {
	CPU string
	// Cycles is the predicted steady-state cycles per iteration of the loop.
	Cycles float64
	// Peak is the cycles the loop's Count arithmetic instructions need at their reciprocal
	// throughput (RThroughput): the bound of the CPU's arithmetic pipes.
	Peak  float64
	Count int
	// Instructions is the number of instructions of one iteration.
	Instructions int
}

// Ratio is Cycles over Peak: 1 is the CPU's peak arithmetic throughput.
func (r Report) Ratio() float64 { return r.Cycles / r.Peak }

// String is the report's line in the benchmark table.
func (r Report) String() string {
	return fmt.Sprintf("%s: %.1f cycles/iteration, peak %.1f (%d arithmetic of %d instructions): %.2fx of peak",
		r.CPU, r.Cycles, r.Peak, r.Count, r.Instructions, r.Ratio())
}

// mcaIterations is how many iterations llvm-mca simulates: enough for the steady state.
const mcaIterations = 200

// Analyze runs llvm-mca for triple and cpu on the loop and returns its prediction; instr
// selects the arithmetic instructions whose reciprocal throughput gives the peak.
func Analyze(ctx context.Context, lp Loop, triple, cpu string, instr *regexp.Regexp) (Report, error) {
	tool := os.Getenv("GRAPHC_MCA")
	if tool == "" {
		tool = "llvm-mca-19"
	}
	bin, err := exec.LookPath(tool)
	if err != nil {
		return Report{}, fmt.Errorf("%w: %s", ErrNoMCA, tool)
	}
	dir, err := os.MkdirTemp("", "graphc-mca-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "loop.s")
	var body []string
	for _, l := range lp.Lines {
		// the loop's instructions only: the branch back closes the block, directives and
		// labels are not instructions
		code := strings.TrimSpace(strings.SplitN(l, "//", 2)[0])
		if code == "" || strings.HasPrefix(code, ".") || strings.HasSuffix(code, ":") {
			continue
		}
		body = append(body, "\t"+code)
	}
	if err := os.WriteFile(src, []byte(strings.Join(body, "\n")+"\n"), 0o644); err != nil {
		return Report{}, err
	}
	out, err := exec.CommandContext(ctx, bin, "-mtriple="+triple, "-mcpu="+cpu, fmt.Sprintf("-iterations=%d", mcaIterations),
		"-instruction-info", "-resource-pressure=false", src).CombinedOutput()
	if err != nil {
		return Report{}, fmt.Errorf("llvm-mca -mcpu=%s: %v\n%s", cpu, err, out)
	}
	return parse(string(out), cpu, instr)
}

// parse reads llvm-mca's summary (Iterations, Total Cycles, Instructions) and its instruction
// info table ([1] uOps [2] latency [3] RThroughput ... instruction).
func parse(out, cpu string, instr *regexp.Regexp) (Report, error) {
	r := Report{CPU: cpu}
	var iters, cycles, insts float64
	sc := bufio.NewScanner(strings.NewReader(out))
	inTable := false
	for sc.Scan() {
		l := sc.Text()
		num := func(prefix string) (float64, bool) {
			v, ok := strings.CutPrefix(l, prefix)
			if !ok {
				return 0, false
			}
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f, err == nil
		}
		if v, ok := num("Iterations:"); ok {
			iters = v
		} else if v, ok := num("Total Cycles:"); ok {
			cycles = v
		} else if v, ok := num("Instructions:"); ok {
			insts = v
		} else if strings.HasPrefix(l, "[1]    [2]") {
			inTable = true
		} else if inTable {
			f := strings.Fields(l)
			if len(f) < 4 {
				inTable = false
				continue
			}
			if instr.MatchString(l) {
				rt, err := strconv.ParseFloat(f[2], 64)
				if err != nil {
					return r, fmt.Errorf("llvm-mca: cannot read the throughput of %q", l)
				}
				r.Count++
				r.Peak += rt
			}
		}
	}
	if iters <= 0 || cycles <= 0 || r.Count == 0 {
		return r, fmt.Errorf("llvm-mca -mcpu=%s: no summary or no arithmetic instruction in its output:\n%s", cpu, out)
	}
	r.Cycles = cycles / iters
	r.Instructions = int(insts / iters)
	return r, nil
}
