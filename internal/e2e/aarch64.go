// This file describes AArch64 machines: code for a named Arm CPU, cross-compiled with clang-19
// against the Debian arm64 cross libc (libc6-dev-arm64-cross, libgcc-12-dev-arm64-cross),
// linked statically with lld and run under qemu-aarch64 (qemu-user), whose default CPU ("max")
// has every feature the named CPUs imply (dotprod, i8mm, fp16, bf16, SVE).

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// AArch64Sysroot is where Debian's arm64 cross packages put the C library.
const AArch64Sysroot = "/usr/aarch64-linux-gnu"

// AArch64 is AArch64 code for CPU cpu ("" or "generic": baseline NEON; "cortex-x2": dotprod and
// i8mm ...), run under qemu-aarch64.
func AArch64(cpu string) Machine { return Machine{Target: "aarch64", CPU: cpu} }

func (m Machine) aarch64() bool { return m.Target == "aarch64" }

// AArch64Missing returns why AArch64 programs cannot be built and run here ("" when they can):
// qemu-aarch64, ld.lld or the cross C library is missing.
func AArch64Missing() string {
	var miss []string
	if _, err := exec.LookPath("qemu-aarch64"); err != nil {
		miss = append(miss, "qemu-aarch64 (qemu-user)")
	}
	if _, err := Tool("GRAPHC_LLD", "ld.lld"); err != nil {
		miss = append(miss, "ld.lld (lld-19)")
	}
	if _, err := os.Stat(AArch64Sysroot + "/lib/libc.a"); err != nil {
		miss = append(miss, AArch64Sysroot+"/lib/libc.a (libc6-dev-arm64-cross)")
	}
	if len(miss) == 0 {
		return ""
	}
	return "not installed: " + strings.Join(miss, ", ")
}

// aarch64CFlags are the clang flags of a static AArch64 executable for the module's CPU.
func aarch64CFlags(cpu string) []string {
	args := []string{"--target=aarch64-linux-gnu", "-static", "-fuse-ld=lld"}
	if cpu != "" && cpu != "native" {
		args = append(args, "-mcpu="+cpu)
	}
	return args
}

// aarch64Command runs an AArch64 executable under qemu-aarch64.
func aarch64Command(path string) (string, []string, error) {
	q, err := exec.LookPath("qemu-aarch64")
	if err != nil {
		return "", nil, fmt.Errorf("%w: qemu-aarch64", ErrNoToolchain)
	}
	return q, []string{"-L", AArch64Sysroot, path}, nil
}
