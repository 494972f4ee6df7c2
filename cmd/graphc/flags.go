// This file checks the compile flags against each other before anything is read: the target
// and its features, the entry name, the flags that apply only to some --emit kinds or input
// formats, and -o. Mistakes are usage errors (exit 2); flags that do nothing for this command
// but cannot do harm are warnings. checkFlags takes plain values so that every subcommand that
// compiles shares it.

package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/graphc/graphc/lower"
	"github.com/graphc/graphc/passes"
)

// cliTargets are the names --target accepts: architectures. The other files of lower/targets
// are CPUs (--mcpu) or CPU variants.
var cliTargets = []string{"x86-64", "aarch64", "hexagon"}

// features/<target>.txt list the features LLVM 19 knows for each target, one per line, as
// `llc-19 -mtriple=TRIPLE -mattr=help` prints them (TestFeatureLists regenerates them with
// -update).
//
//go:embed features/*.txt
var featureFS embed.FS

// knownFeatures returns the LLVM feature names of a --target.
func knownFeatures(target string) []string {
	data, err := featureFS.ReadFile("features/" + target + ".txt")
	if err != nil {
		return nil
	}
	return strings.Fields(string(data))
}

// compileFlags are the values of the compile flags that checkFlags relates, and which of them
// the command line set.
type compileFlags struct {
	model                                         string
	emit, out, weights                            string
	target, mcpu, mattr, entry, outputs, op, dims string
	set                                           map[string]bool // flag names given on the command line
}

var cIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkFlags returns the usage error of the first mistake (nil when there is none) and the
// warnings about flags that have no effect.
func checkFlags(c compileFlags) (warnings []string, err error) {
	if err := checkTarget(c.target, c.mcpu); err != nil {
		return nil, err
	}
	if err := checkMattr(c.target, c.mattr); err != nil {
		return nil, err
	}
	if !cIdent.MatchString(c.entry) {
		return nil, usageErr("--entry=%s: the entry is a C function name: letters, digits and _, not starting with a digit", c.entry)
	}
	format := modelFormat(c.model)
	if c.set["outputs"] && (format == "onnx" || format == "ir") {
		return nil, usageErr("--outputs applies to TensorFlow graphs (.pb, .pbtxt): %s's outputs are those its graph declares (--require restricts what is computed of them)", c.model)
	}
	if c.emit != "svg" {
		for _, f := range []string{"op", "dims"} {
			if c.set[f] {
				return nil, usageErr("--%s applies only to --emit=svg (the picture of one op's domain), not --emit=%s", f, c.emit)
			}
		}
	}
	if c.emit == "ir" || c.emit == "dot" || c.emit == "svg" {
		for _, f := range []string{"mcpu", "mattr", "profile", "weights"} {
			if c.set[f] {
				warnings = append(warnings, fmt.Sprintf("--%s has no effect with --emit=%s (nothing is lowered)", f, c.emit))
			}
		}
	}
	if err := checkOutput("-o ", c.out); err != nil {
		return nil, err
	}
	if err := checkOutput("--weights=", c.weights); err != nil {
		return nil, err
	}
	if w := extensionWarning(c.out, c.emit); w != "" {
		warnings = append(warnings, w)
	}
	return warnings, nil
}

// modelFormat returns "onnx", "tf" or "ir" from MODEL's extension ("" for another).
func modelFormat(model string) string {
	switch strings.ToLower(filepath.Ext(model)) {
	case ".onnx":
		return "onnx"
	case ".pb", ".pbtxt":
		return "tf"
	case ".graph":
		return "ir"
	}
	return ""
}

// checkTarget accepts the architectures of cliTargets. A CPU or CPU variant given to --target
// gets the --target/--mcpu/--mattr spelling that means it.
func checkTarget(target, mcpu string) error {
	if slices.Contains(cliTargets, target) {
		return nil
	}
	if t, err := lower.LoadTarget(target); err == nil {
		for _, fam := range cliTargets {
			f, err := lower.LoadTarget(fam)
			if err != nil || f.Triple != t.Triple {
				continue
			}
			hint := fmt.Sprintf("--target=%s --mcpu=%s", fam, t.CPU)
			if !t.IsCPU() {
				if c, err := lower.LoadTarget(t.CPU); err == nil && c.Features != t.Features && t.Features != "" {
					hint += " --mattr=" + t.Features
				}
				return usageErr("--target=%s: %s is a CPU variant, not a target: use %s", target, target, hint)
			}
			if mcpu != "" && mcpu != t.CPU {
				return usageErr("--target=%s: %s is a CPU, and --mcpu=%s names another: use --target=%s with one --mcpu", target, target, mcpu, fam)
			}
			return usageErr("--target=%s: %s is a CPU: use %s", target, target, hint)
		}
	}
	msg := fmt.Sprintf("--target=%s: unknown target (targets: %s; CPUs go to --mcpu)", target, strings.Join(cliTargets, ", "))
	if s := passes.Suggest(target, cliTargets); s != "" {
		msg = fmt.Sprintf("--target=%s: unknown target (did you mean %s? targets: %s; CPUs go to --mcpu)", target, s, strings.Join(cliTargets, ", "))
	}
	return usageErr("%s", msg)
}

// checkMattr checks --mattr as llc -mattr reads it: comma-separated entries, each a sign (+
// enables, - disables) and a feature LLVM knows for the target.
func checkMattr(target, mattr string) error {
	if mattr == "" {
		return nil
	}
	known := knownFeatures(target)
	for _, e := range strings.Split(mattr, ",") {
		e = strings.TrimSpace(e)
		switch {
		case e == "":
			return usageErr("--mattr=%s: an empty entry (features are separated by single commas)", mattr)
		case e[0] != '+' && e[0] != '-':
			return usageErr("--mattr=%s: %q needs a sign: +%s enables the feature, -%s disables it", mattr, e, e, e)
		case len(known) > 0 && !slices.Contains(known, e[1:]):
			msg := fmt.Sprintf("--mattr=%s: unknown feature %q for --target=%s", mattr, e[1:], target)
			if s := suggestFeature(e[1:], known); s != "" {
				msg += fmt.Sprintf(" (did you mean %c%s?)", e[0], s)
			}
			t, _ := lower.LoadTarget(target)
			if t != nil {
				msg += fmt.Sprintf("; llc-19 -mtriple=%s -mattr=help lists them", t.Triple)
			}
			return usageErr("%s", msg)
		}
	}
	return nil
}

// checkOutput rejects an output file (flag "-o " or "--weights=") that cannot be a file: a
// directory, or a path in a directory that does not exist. Both name the user's path (outputs
// are written to a temporary file beside it first).
func checkOutput(flag, out string) error {
	if out == "" || out == "-" {
		return nil
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return usageErr("%s%s: is a directory; %s names the output file", flag, out, strings.TrimRight(flag, " ="))
	}
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageErr("%s%s: directory %s does not exist", flag, out, dir)
	case err == nil && !fi.IsDir():
		return usageErr("%s%s: %s is not a directory", flag, out, dir)
	}
	return nil
}

// outputErr names the user's -o path in an error about writing it, not the temporary file.
func outputErr(out string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		err = le.Err
	}
	return &cliError{exitInput, fmt.Errorf("-o %s: %w", out, err)}
}

// extensionWarning says when -o's extension is another --emit kind's.
func extensionWarning(out, emit string) string {
	if out == "" || out == "-" || out == os.DevNull {
		return ""
	}
	ext := strings.ToLower(filepath.Ext(out))
	if ext == "" || ext == emitExt[emit] {
		return ""
	}
	for kind, e := range emitExt {
		if e == ext {
			return fmt.Sprintf("-o %s: the extension is --emit=%s's, but --emit=%s writes %s (%s)", out, kind, emit, emitWhat[emit], emitExt[emit])
		}
	}
	return ""
}

// emitWhat says what each --emit kind writes, for messages.
var emitWhat = map[string]string{
	"llvm": "LLVM IR", "ir": "graphc IR text", "header": "the C header", "asm": "assembly",
	"obj": "an object file", "lib": "a shared library", "dot": "a Graphviz graph",
	"svg": "an SVG picture", "plan": "the lowering plan",
}

// suggestFeature is passes.Suggest for feature names, preferring among the equally close ones
// the name that shares the longest prefix, the last of those in the (sorted) list: hvxv75 ->
// hvxv73, not hvxv65 or hvxv71.
func suggestFeature(name string, known []string) string {
	best := passes.Suggest(name, known)
	if best == "" {
		return ""
	}
	d := editDistance(name, best)
	for _, k := range known {
		if editDistance(name, k) == d && commonPrefix(name, k) >= commonPrefix(name, best) {
			best = k
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
