// This file decides how wide the vectors of x86-64 register tiles are and which integer
// dot-product instructions a CPU has, from the CPU spec (lower/targets) and the feature edits
// the user gave (--mattr), and for --mcpu=native from the host's CPU flags, as clang's
// -march=native does.

package lower

import (
	"os"
	"strings"
	"sync"
)

// x86VectorBytes returns the register width of a CPU whose spec says base bytes, after the
// feature edits: "+avx512f" widens to 64, "+avx"/"+avx2" to 32, "-avx512f" and "-evex512"
// (AVX-512 instructions on 256-bit vectors only) narrow to 32 and "-avx"/"-avx2" to 16 (SSE2,
// which every x86-64 has).
func x86VectorBytes(base int, features string) int {
	w := max(base, 16)
	for _, f := range strings.Split(features, ",") {
		switch strings.TrimSpace(f) {
		case "+avx512f":
			w = 64
		case "+avx", "+avx2":
			w = max(w, 32)
		case "-avx512f", "-evex512":
			w = min(w, 32)
		case "-avx", "-avx2":
			w = 16
		}
	}
	return w
}

// hostFlagFeatures maps /proc/cpuinfo flags to the LLVM features graphc's decisions read.
var hostFlagFeatures = [][2]string{
	{"sse4_2", "+sse4.2"}, {"avx", "+avx"}, {"avx2", "+avx2"}, {"fma", "+fma"},
	{"avx512f", "+avx512f"}, {"avx512bw", "+avx512bw"}, {"avx512dq", "+avx512dq"}, {"avx512vl", "+avx512vl"},
	{"avx512_vnni", "+avx512vnni"}, {"avx_vnni", "+avxvnni"},
}

var hostInfo = sync.OnceValues(func() (string, int) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "", 16
	}
	return cpuinfoFeatures(string(data))
})

// hostFeatures returns the features and register width of the machine graphc runs on.
func hostFeatures() (string, int) { return hostInfo() }

// cpuinfoFeatures reads the first "flags" line of /proc/cpuinfo: the features graphc uses and
// the register width (64 with AVX-512F, 32 with AVX, else 16).
func cpuinfoFeatures(cpuinfo string) (string, int) {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != "flags" {
			continue
		}
		flags := strings.Fields(v)
		var feats []string
		for _, m := range hostFlagFeatures {
			if contains(flags, m[0]) {
				feats = append(feats, m[1])
			}
		}
		w := 16
		switch {
		case contains(flags, "avx512f"):
			w = 64
		case contains(flags, "avx"):
			w = 32
		}
		return strings.Join(feats, ","), w
	}
	return "", 16
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
