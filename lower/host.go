// This file decides how wide the vectors of x86-64 register tiles are, from the CPU name and
// feature string the user gave (--mcpu, --mattr), and for --mcpu=native from the host's CPU
// flags, as clang's -march=native does.

package lower

import (
	"os"
	"strings"
	"sync"
)

// x86 CPUs by widest vector unit (LLVM CPU names; others are treated as SSE2-only).
var (
	x86AVX512 = []string{"skylake-avx512", "cascadelake", "cooperlake", "cannonlake", "icelake-client",
		"icelake-server", "tigerlake", "rocketlake", "sapphirerapids", "emeraldrapids", "graniterapids",
		"graniterapids-d", "diamondrapids", "knl", "knm", "znver4", "znver5", "x86-64-v4"}
	x86AVX = []string{"sandybridge", "ivybridge", "haswell", "broadwell", "skylake", "alderlake",
		"raptorlake", "meteorlake", "arrowlake", "arrowlake-s", "lunarlake", "pantherlake", "gracemont",
		"sierraforest", "grandridge", "clearwaterforest", "znver1", "znver2", "znver3", "bdver1", "bdver2",
		"bdver3", "bdver4", "btver2", "x86-64-v3"}
)

// x86VectorBytes returns the register width for cpu and features: 64 with AVX-512F, 32 with
// AVX, else 16 (SSE2, which every x86-64 has). Features override the CPU: "+avx512f" widens,
// "-avx512f" and "-avx" narrow.
func x86VectorBytes(cpu, features string) int {
	w := 16
	switch {
	case cpu == "native":
		w = hostVectorBytes()
	case contains(x86AVX512, cpu):
		w = 64
	case contains(x86AVX, cpu):
		w = 32
	}
	for _, f := range strings.Split(features, ",") {
		switch strings.TrimSpace(f) {
		case "+avx512f":
			w = 64
		case "+avx", "+avx2":
			w = max(w, 32)
		case "-avx512f":
			w = min(w, 32)
		case "-avx", "-avx2":
			w = 16
		}
	}
	return w
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

var hostWidth = sync.OnceValue(func() int {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 16
	}
	return cpuinfoVectorBytes(string(data))
})

// hostVectorBytes returns the register width of the machine graphc runs on (16 when unknown).
func hostVectorBytes() int { return hostWidth() }

// cpuinfoVectorBytes reads the first "flags" line of /proc/cpuinfo.
func cpuinfoVectorBytes(cpuinfo string) int {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != "flags" {
			continue
		}
		flags := strings.Fields(v)
		switch {
		case contains(flags, "avx512f"):
			return 64
		case contains(flags, "avx"):
			return 32
		}
		return 16
	}
	return 16
}
