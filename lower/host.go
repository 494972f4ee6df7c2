// This file decides how wide the vectors of a CPU whose vectors are as wide as it allows
// (x86-64) are after feature edits (--mattr), and for --mcpu=native which features and width
// the host has, from its /proc/cpuinfo flags as clang's -march=native does. The facts (which
// feature widens or narrows the vectors, which flag means which feature) are the target
// spec's (lower/targets/x86-64.json); this file only applies them.

package lower

import (
	"os"
	"strings"
	"sync"
)

// VectorBytesEdit is how one feature edit changes the vector width: enabling or disabling
// Feature ("+avx512f", "-evex512") raises the width to AtLeast or lowers it to AtMost (0: no
// bound).
type VectorBytesEdit struct {
	Feature string `json:"feature"`
	AtLeast int    `json:"at-least"`
	AtMost  int    `json:"at-most"`
}

// HostFlag maps a /proc/cpuinfo flag to the LLVM feature it means.
type HostFlag struct {
	Flag    string `json:"flag"`
	Feature string `json:"feature"`
}

// vectorBytesFor returns the register width of a CPU whose spec says base bytes, after the
// feature edits: at least MinVectorBytes, then each feature of features in order changes it
// as VectorBytesEdits say.
func (t *Target) vectorBytesFor(base int, features string) int {
	w := max(base, t.MinVectorBytes)
	for _, f := range strings.Split(features, ",") {
		f = strings.TrimSpace(f)
		for _, e := range t.VectorBytesEdits {
			if e.Feature != f {
				continue
			}
			if e.AtLeast > 0 {
				w = max(w, e.AtLeast)
			}
			if e.AtMost > 0 {
				w = min(w, e.AtMost)
			}
		}
	}
	return w
}

// hostCPUInfo is the text of /proc/cpuinfo ("" where there is none).
var hostCPUInfo = sync.OnceValue(func() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	return string(data)
})

// hostFeatures returns the features and register width of the machine graphc runs on.
func (t *Target) hostFeatures() (string, int) { return t.cpuinfoFeatures(hostCPUInfo()) }

// cpuinfoFeatures reads the first "flags" line of /proc/cpuinfo ("Features" on AArch64:
// HostCPUInfoKey): the features graphc uses (HostFlags) and the register width they give.
func (t *Target) cpuinfoFeatures(cpuinfo string) (string, int) {
	key := t.HostCPUInfoKey
	if key == "" {
		key = "flags"
	}
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(k) != key {
			continue
		}
		flags := strings.Fields(v)
		var feats []string
		for _, m := range t.HostFlags {
			if contains(flags, m.Flag) {
				feats = append(feats, m.Feature)
			}
		}
		f := strings.Join(feats, ",")
		return f, t.vectorBytesFor(t.MinVectorBytes, f)
	}
	return "", t.MinVectorBytes
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
