// This file turns a lowered module into assembly, an object file or a shared library with the
// installed LLVM tools (llc-19 and clang-19, or GRAPHC_LLC and GRAPHC_CLANG), passing the
// target's triple, CPU, features and flags.

package lower

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrToolMissing is wrapped by the error of Build when llc or clang cannot be found.
var ErrToolMissing = errors.New("LLVM tool not found")

// ErrUnknownFeature is returned by Build when LLVM does not recognise a feature of the module's
// --mattr (LLVM itself only warns and ignores it, which would hide a typo).
var ErrUnknownFeature = errors.New("unknown target feature")

// FindTool returns the path of an LLVM tool: the environment variable env if set, else
// name-19, else name on PATH.
func FindTool(env, name string) (string, error) {
	if p := os.Getenv(env); p != "" {
		if _, err := exec.LookPath(p); err != nil {
			return "", fmt.Errorf("%w: %s=%s: %v", ErrToolMissing, env, p, err)
		}
		return p, nil
	}
	for _, n := range []string{name + "-19", name} {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: %s-19 (or %s) is not on PATH; install LLVM 19 or set %s", ErrToolMissing, name, name, env)
}

// Build compiles the module: kind "asm" (assembly), "obj" (relocatable object) or "lib" (shared
// library). It runs clang (which optimizes the IR at -O2 before code generation); when only llc
// is installed, asm and obj come from llc -O2 (code generation only, no IR optimization).
func Build(ctx context.Context, mod *Module, kind string) ([]byte, error) {
	if kind != "asm" && kind != "obj" && kind != "lib" {
		return nil, fmt.Errorf("unknown build kind %q (want asm, obj or lib)", kind)
	}
	dir, err := os.MkdirTemp("", "graphc-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ll := filepath.Join(dir, "module.ll")
	if err := mod.WriteFile(ll); err != nil {
		return nil, err
	}
	out := filepath.Join(dir, "out")
	t := mod.Target
	tool, err := FindTool("GRAPHC_CLANG", "clang")
	var args []string
	switch {
	case err != nil && os.Getenv("GRAPHC_CLANG") != "":
		return nil, fmt.Errorf("--emit=%s: %w", kind, err) // set but wrong: no silent fallback
	case err == nil:
		args = []string{"--target=" + t.Triple, "-O2", "-fPIC", "-w"}
		if mod.CPU != "" {
			flag := t.ClangCPUFlag
			if flag == "" {
				flag = "-mcpu"
			}
			args = append(args, flag+"="+mod.CPU)
		}
		switch kind {
		case "asm":
			args = append(args, "-S")
		case "obj":
			args = append(args, "-c")
		case "lib":
			args = append(args, "-shared")
			if t.Freestanding {
				args = append(args, "-nostdlib", "-fuse-ld=lld")
			}
			args = append(args, t.LinkFlags...)
		}
		args = append(args, ll, "-o", out)
		if kind == "lib" && !t.Freestanding {
			// hosted modules may call libm (floor, expf, ...): the library names it, so that
			// dlopen resolves those symbols in a process that does not link libm itself
			args = append(args, "-lm")
		}
	case kind == "lib":
		return nil, fmt.Errorf("--emit=lib: %w", err)
	default:
		llc, lerr := FindTool("GRAPHC_LLC", "llc")
		if lerr != nil {
			return nil, fmt.Errorf("--emit=%s: %w; %v", kind, err, lerr)
		}
		tool = llc
		args = []string{"-O2", "-mtriple=" + t.Triple, "-filetype=" + kind}
		if mod.CPU != "" {
			args = append(args, "-mcpu="+mod.CPU)
		}
		if mod.Attrs != "" && mod.CPU != "native" {
			args = append(args, "-mattr="+mod.Attrs)
		}
		args = append(args, t.LLCFlags...)
		args = append(args, ll, "-o", out)
	}
	cmd := exec.CommandContext(ctx, tool, args...)
	msg, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %v\n%s", filepath.Base(tool), strings.Join(args, " "), err, msg)
	}
	if bad := unrecognizedFeatures(string(msg)); len(bad) > 0 {
		return nil, fmt.Errorf("%w for %s: %s (--mattr takes LLVM feature names: llc-19 -mtriple=%s -mattr=help lists them)",
			ErrUnknownFeature, t.Triple, strings.Join(bad, ", "), t.Triple)
	}
	return os.ReadFile(out)
}

// unrecognizedFeatures returns the features LLVM's output says it ignored, each once.
func unrecognizedFeatures(msg string) []string {
	const suffix = "' is not a recognized feature"
	var out []string
	seen := map[string]bool{}
	for rest := msg; ; {
		i := strings.Index(rest, suffix)
		if i < 0 {
			return out
		}
		j := strings.LastIndex(rest[:i], "'")
		if j >= 0 && !seen[rest[j+1:i]] {
			seen[rest[j+1:i]] = true
			out = append(out, rest[j+1:i])
		}
		rest = rest[i+len(suffix):]
	}
}
