// This file decides whether the host can execute a machine's code: the one place tests ask
// before they run code built for a named CPU. An x86-64 machine needs the ISA extensions its
// CPU implies (lower/targets' implied and default features, and every extension clang's
// -march=CPU predefines a macro for, so that an instruction LLVM picks on its own, such as
// AVX512-FP16, counts too), edited by its --mattr; the host offers the flags of
// /proc/cpuinfo. GRAPHC_HOST_CPU=CPU (any x86 CPU of lower/targets) caps the host at that CPU:
// the helper treats the host as having only that CPU's extensions (intersected with its own),
// and "native" means that CPU, so that an AVX-512 machine proves what an AVX2 one runs.

package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/graphc/graphc/lower"
)

// HostCPUEnv is the environment variable that caps the host at a CPU (e.g. x86-64-v3).
const HostCPUEnv = "GRAPHC_HOST_CPU"

// ErrCannotExecute is returned when a program is built for features the host lacks: a test
// that runs code for a named CPU must ask CanRun (or Machine.CanExecute) first.
var ErrCannotExecute = errors.New("the host cannot execute this code")

// isaExt is one x86 ISA extension under its three names: the LLVM feature, the
// /proc/cpuinfo flag and clang's predefined macro.
type isaExt struct{ feature, flag, macro string }

// isaExts are the extensions beyond the x86-64 baseline (SSE2) that LLVM's code generation may
// use on its own or for the intrinsics graphc emits, in the order reasons list them. Those only
// an explicit intrinsic reaches (AES, PCLMUL, SHA, VAES, VPCLMULQDQ, ADX, AMX, VP2INTERSECT)
// are left out: otherwise a Haswell would need AES, which no x86-64-v3 host is promised.
var isaExts = []isaExt{
	{"sse3", "pni", "__SSE3__"}, {"ssse3", "ssse3", "__SSSE3__"}, {"sse4.1", "sse4_1", "__SSE4_1__"},
	{"sse4.2", "sse4_2", "__SSE4_2__"}, {"popcnt", "popcnt", "__POPCNT__"}, {"avx", "avx", "__AVX__"},
	{"avx2", "avx2", "__AVX2__"}, {"fma", "fma", "__FMA__"}, {"f16c", "f16c", "__F16C__"},
	{"bmi", "bmi1", "__BMI__"}, {"bmi2", "bmi2", "__BMI2__"}, {"lzcnt", "abm", "__LZCNT__"},
	{"movbe", "movbe", "__MOVBE__"}, {"gfni", "gfni", "__GFNI__"},
	{"avxvnni", "avx_vnni", "__AVXVNNI__"}, {"avxifma", "avx_ifma", "__AVXIFMA__"},
	{"avxvnniint8", "avx_vnni_int8", "__AVXVNNIINT8__"}, {"avxneconvert", "avx_ne_convert", "__AVXNECONVERT__"},
	{"avx512f", "avx512f", "__AVX512F__"}, {"avx512bw", "avx512bw", "__AVX512BW__"},
	{"avx512dq", "avx512dq", "__AVX512DQ__"}, {"avx512vl", "avx512vl", "__AVX512VL__"},
	{"avx512cd", "avx512cd", "__AVX512CD__"}, {"avx512ifma", "avx512ifma", "__AVX512IFMA__"},
	{"avx512vbmi", "avx512vbmi", "__AVX512VBMI__"}, {"avx512vbmi2", "avx512_vbmi2", "__AVX512VBMI2__"},
	{"avx512vnni", "avx512_vnni", "__AVX512VNNI__"}, {"avx512bitalg", "avx512_bitalg", "__AVX512BITALG__"},
	{"avx512vpopcntdq", "avx512_vpopcntdq", "__AVX512VPOPCNTDQ__"}, {"avx512bf16", "avx512_bf16", "__AVX512BF16__"},
	{"avx512fp16", "avx512_fp16", "__AVX512FP16__"},
}

// X86CPUs returns the x86-64 CPU names of lower/targets (the baseline x86-64 included), the
// names GRAPHC_HOST_CPU and Machine.CPU take.
func X86CPUs() []string {
	t, err := lower.LoadTarget("x86-64")
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range t.CPUs() {
		out = append(out, c.CPU)
	}
	return out
}

// clangMacros returns the extension flags clang predefines a macro for with -march=cpu (nil
// without clang: then only lower/targets' features count).
var clangMacros = sync.OnceValue(func() func(cpu string) []string {
	var mu sync.Mutex
	cache := map[string][]string{}
	return func(cpu string) []string {
		mu.Lock()
		defer mu.Unlock()
		if f, ok := cache[cpu]; ok {
			return f
		}
		var flags []string
		if clang, err := Clang(); err == nil {
			out, err := exec.Command(clang, "--target=x86_64-pc-linux-gnu", "-march="+cpu, "-dM", "-E", "-x", "c", os.DevNull).Output()
			if err == nil {
				defined := map[string]bool{}
				for _, line := range strings.Split(string(out), "\n") {
					if f := strings.Fields(line); len(f) >= 2 && f[0] == "#define" {
						defined[f[1]] = true
					}
				}
				for _, e := range isaExts {
					if defined[e.macro] {
						flags = append(flags, e.flag)
					}
				}
			}
		}
		cache[cpu] = flags
		return flags
	}
})

// requiredFlags returns the /proc/cpuinfo flags code for an x86-64 CPU ("" = baseline) with
// the --mattr edits mattr needs.
func requiredFlags(cpu, mattr string) ([]string, error) {
	x86, err := lower.LoadTarget("x86-64")
	if err != nil {
		return nil, err
	}
	if cpu == "native" {
		// the features lowering reads from the host, all of which it has (HostBest
		// resolves native under a cap)
		cpu = ""
	}
	spec, err := x86.ForCPU(cpu)
	if err != nil {
		return nil, err
	}
	feats := lower.MergeFeatures(spec.ImpliedFeatures, spec.Features)
	for _, f := range clangMacros()(spec.LLVMName()) {
		for _, e := range isaExts {
			if e.flag == f {
				feats = lower.MergeFeatures(feats, "+"+e.feature)
			}
		}
	}
	feats = lower.MergeFeatures(feats, mattr)
	var flags []string
	for _, f := range strings.Split(feats, ",") {
		name, on := strings.CutPrefix(strings.TrimSpace(f), "+")
		if !on {
			continue
		}
		for _, e := range isaExts {
			if e.feature == name && !slices.Contains(flags, e.flag) {
				flags = append(flags, e.flag)
			}
		}
	}
	return flags, nil
}

// realFlags are the flags of the first "flags" line of /proc/cpuinfo (nil where there is none).
var realFlags = sync.OnceValue(func() []string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			return strings.Fields(v)
		}
	}
	return nil
})

// HostCPU returns the CPU GRAPHC_HOST_CPU caps the host at ("" when unset). A name that is not
// an x86-64 CPU of lower/targets, or a CPU the host itself cannot run, is an error.
func HostCPU() (string, error) {
	cpu := strings.TrimSpace(os.Getenv(HostCPUEnv))
	if cpu == "" {
		return "", nil
	}
	if !slices.Contains(X86CPUs(), cpu) {
		return "", fmt.Errorf("%s=%s: not an x86-64 CPU of lower/targets (valid: %s)", HostCPUEnv, cpu, strings.Join(X86CPUs(), ", "))
	}
	need, err := requiredFlags(cpu, "")
	if err != nil {
		return "", fmt.Errorf("%s=%s: %w", HostCPUEnv, cpu, err)
	}
	if miss := missing(need, realFlags()); len(miss) > 0 {
		return "", fmt.Errorf("%s=%s: this host cannot run that CPU's code (it lacks %s): cap it at a CPU it runs",
			HostCPUEnv, cpu, strings.Join(miss, ", "))
	}
	return cpu, nil
}

// hostFlags returns the flags the helper takes the host to have: /proc/cpuinfo's, or under a
// cap the cap CPU's among them; and how to name the host in reasons.
func hostFlags() ([]string, string, error) {
	capCPU, err := HostCPU()
	if err != nil {
		return nil, "", err
	}
	if capCPU == "" {
		return realFlags(), "host", nil
	}
	need, err := requiredFlags(capCPU, "")
	if err != nil {
		return nil, "", err
	}
	return need, fmt.Sprintf("host (%s=%s)", HostCPUEnv, capCPU), nil
}

func missing(need, have []string) []string {
	var out []string
	for _, f := range need {
		if !slices.Contains(have, f) {
			out = append(out, f)
		}
	}
	return out
}

// HostCanExecute reports whether the host (capped by GRAPHC_HOST_CPU) can run x86-64 code for
// cpu ("" = baseline x86-64, "native" = the host) with the --mattr edits mattr, and if not
// why ("host lacks avx512f").
func HostCanExecute(cpu, mattr string) (bool, string) {
	if runtime.GOARCH != "amd64" {
		return false, "host is " + runtime.GOARCH + ", not x86-64"
	}
	have, host, err := hostFlags()
	if err != nil {
		return false, err.Error()
	}
	if cpu == "native" {
		// native code is the (capped) host's by construction; HostBest resolves it under a cap
		cpu = ""
	}
	need, err := requiredFlags(cpu, mattr)
	if err != nil {
		return false, err.Error()
	}
	if have == nil && len(need) > 0 {
		return false, "cannot read /proc/cpuinfo: the host's extensions are unknown"
	}
	if miss := missing(need, have); len(miss) > 0 {
		return false, host + " lacks " + strings.Join(miss, ", ")
	}
	return true, ""
}

// CanExecute reports whether the host can run m's code (x86-64 natively, Hexagon under
// qemu-hexagon), and if not why.
func (m Machine) CanExecute() (bool, string) {
	if m.aarch64() {
		// qemu-aarch64's default CPU has every feature the Arm CPU specs imply
		if why := AArch64Missing(); why != "" {
			return false, why
		}
		return true, ""
	}
	if m.hexagon() {
		if _, err := exec.LookPath("qemu-hexagon"); err != nil {
			return false, "qemu-hexagon not installed"
		}
		return true, ""
	}
	m = m.resolve()
	cpu := m.CPU
	for _, f := range m.CFlags {
		// the driver's -march is code too
		if a, ok := strings.CutPrefix(f, "-march="); ok && a != "native" {
			if ok, why := HostCanExecute(a, ""); !ok {
				return false, why
			}
		}
	}
	return HostCanExecute(cpu, m.Attrs)
}

// TB is the part of testing.TB CanRun uses.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// CanRun is what a test asks before it executes m's code: true when the host (capped by
// GRAPHC_HOST_CPU) can run it; otherwise it logs why and returns false, and the test keeps
// only its compile checks. An invalid GRAPHC_HOST_CPU fails the test.
func CanRun(t TB, m Machine) bool {
	t.Helper()
	if _, err := HostCPU(); err != nil {
		t.Fatalf("%v", err)
	}
	ok, why := m.CanExecute()
	if !ok {
		t.Logf("%s: compiled, not executed: %s", m, why)
	}
	return ok
}

// resolve returns m with "native" (CPU and -march) replaced by the GRAPHC_HOST_CPU cap when
// one is set: under a cap the host's best code is that CPU's.
func (m Machine) resolve() Machine {
	if m.hexagon() {
		return m
	}
	capCPU, err := HostCPU()
	if err != nil || capCPU == "" {
		return m
	}
	if m.CPU == "native" {
		m.CPU = capCPU
	}
	if slices.Contains(m.CFlags, "-march=native") {
		fl := make([]string, len(m.CFlags))
		for i, f := range m.CFlags {
			if f == "-march=native" {
				f = "-march=" + capCPU
			}
			fl[i] = f
		}
		m.CFlags = fl
	}
	return m
}

// CappedOnlyEnv, set to 1 beside GRAPHC_HOST_CPU, makes SkipUncapped skip the machines the cap
// does not change: CI's rerun under the cap, right after `make test` ran every machine.
const CappedOnlyEnv = "GRAPHC_HOST_CPU_ONLY"

// capChanges reports whether capping the host at capCPU changes m's code or whether the host
// may run it: native x86-64 code (it becomes capCPU's), and x86-64 code that needs an extension
// capCPU lacks (run uncapped where the host has it, compiled only under the cap). Baseline
// code, code within the cap (x86-64-v3's own), Hexagon and AArch64 are the same either way.
func (m Machine) capChanges(capCPU string) bool {
	if m.hexagon() || m.aarch64() {
		return false
	}
	if m.native || m.CPU == "native" || slices.Contains(m.CFlags, "-march=native") {
		return true // the host's best code: the cap's under it, the host's own without
	}
	have, err := requiredFlags(capCPU, "")
	if err != nil {
		return true
	}
	need, err := requiredFlags(m.CPU, m.Attrs)
	if err != nil {
		return true
	}
	for _, f := range m.CFlags {
		if a, ok := strings.CutPrefix(f, "-march="); ok {
			more, err := requiredFlags(a, "")
			if err != nil {
				return true
			}
			need = append(need, more...)
		}
	}
	return len(missing(need, have)) > 0
}

// SkipUncapped reports whether a test should skip m, and logs why: under GRAPHC_HOST_CPU with
// GRAPHC_HOST_CPU_ONLY=1, a machine the cap does not change (capChanges) has been tested
// uncapped already, so rerunning it proves nothing new.
func SkipUncapped(t TB, m Machine) bool {
	t.Helper()
	if os.Getenv(CappedOnlyEnv) != "1" {
		return false
	}
	capCPU, err := HostCPU()
	if err != nil {
		t.Fatalf("%v", err)
	}
	if capCPU == "" || m.capChanges(capCPU) {
		return false
	}
	t.Logf("%s: skipped (%s=1: %s=%s does not change its code or whether it runs)", m, CappedOnlyEnv, HostCPUEnv, capCPU)
	return true
}
