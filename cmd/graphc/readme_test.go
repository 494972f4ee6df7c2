package main

// This file runs every graphc command the README shows, as written, from the repository's
// files, so that the documentation cannot drift from the tool: each must exit 0 and write what
// it promises; the output of a "$ bin/graphc" line must be the transcript shown after it (its
// lines in order, where a "..." line marks it shortened); a calc line whose comment is a number
// must print that number. The README's clang-19 and qemu-hexagon lines (the C caller, the
// Hexagon recipe) run too, in order, where the tools are installed.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
)

// readmeCommand is one command line of a README code block.
type readmeCommand struct {
	line       string   // as written, without its comment
	args       []string // the words after the program name
	comment    string   // the text after "#", if any
	transcript []string // for "$ bin/graphc" lines: the output lines shown after it
	shell      bool     // a clang-19 or qemu-hexagon line, run by sh
}

// readmeCommands returns the graphc commands of the README's fenced code blocks.
func readmeCommands(t *testing.T, readme string) []readmeCommand {
	t.Helper()
	var cmds []readmeCommand
	inBlock := false
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			continue
		}
		var rest string
		transcript := false
		switch {
		case strings.HasPrefix(l, "bin/graphc "):
			rest = strings.TrimPrefix(l, "bin/graphc ")
		case strings.HasPrefix(l, "$ bin/graphc "):
			rest, transcript = strings.TrimPrefix(l, "$ bin/graphc "), true
		case strings.HasPrefix(l, "$ graphc ") || strings.HasPrefix(l, "graphc "):
			t.Errorf("README line %d: %q: the tour builds bin/graphc (go build -o bin/graphc), so its commands say bin/graphc", i+1, l)
			continue
		case strings.HasPrefix(l, "clang-19 ") || strings.HasPrefix(l, "qemu-hexagon "):
			for strings.HasSuffix(l, "\\") && i+1 < len(lines) {
				i++
				l = strings.TrimSuffix(l, "\\") + strings.TrimSpace(lines[i])
			}
			cmds = append(cmds, readmeCommand{line: l, shell: true})
			continue
		default:
			continue
		}
		words, comment, err := shellWords(rest)
		require.NoError(t, err, "README line %d: %s", i+1, l)
		c := readmeCommand{line: strings.TrimSpace(strings.SplitN(l, " #", 2)[0]), args: words, comment: comment}
		if transcript {
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "```") {
				i++
				if strings.TrimSpace(lines[i]) != "" {
					c.transcript = append(c.transcript, lines[i])
				}
			}
		}
		cmds = append(cmds, c)
	}
	return cmds
}

// shellWords splits a command line as sh does for the quoting the README uses (single and
// double quotes, no escapes or expansions) and returns the comment after an unquoted "#".
func shellWords(s string) (words []string, comment string, err error) {
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, "", os.ErrInvalid
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '#' && !inWord:
			return words, strings.TrimSpace(s[i+1:]), nil
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, "", nil
}

// readmeModels are the models of testdata/readme, built with onnxgen (TestReadmeModels writes
// them with -update and checks the committed files otherwise): one whose symbolic dims must be
// bound (a flatten of N×M), one with ops graphc does not support, and a linear layer whose
// weights dumps elide.
func readmeModels() map[string]*onnxgen.Model {
	flat := onnxgen.New("flatten", 17)
	flat.Input("X", ir.F32, "N", "M")
	minus1 := ir.NewTensor(ir.I64, []int64{1})
	minus1.I[0] = -1
	flat.Init("minus1", minus1)
	flat.Node("Reshape", "flatten", []string{"X", "minus1"}, []string{"F"})
	flat.Node("Relu", "relu", []string{"F"}, []string{"Y"})
	flat.Output("Y", ir.F32, "NM")
	two := onnxgen.New("two", 17)
	two.Input("S", ir.F32, 4)
	two.Node("StringSplit", "split", []string{"S"}, []string{"A"})
	two.Node("StringNormalizer", "norm", []string{"A"}, []string{"B"})
	two.Node("StringSplit", "split_2", []string{"B"}, []string{"Y"})
	two.Output("Y", ir.F32, 4)
	lin := onnxgen.New("linear", 17)
	lin.Input("X", ir.F32, 4, 64)
	w := ir.NewTensor(ir.F32, []int64{64, 64})
	for i := range w.F {
		w.F[i] = float64(i%9-4) / 8
	}
	lin.Init("W", w)
	lin.Node("MatMul", "linear", []string{"X", "W"}, []string{"Y"})
	lin.Output("Y", ir.F32, 4, 64)
	return map[string]*onnxgen.Model{"flatten.onnx": flat, "text.onnx": two, "linear.onnx": lin}
}

func TestReadmeModels(t *testing.T) {
	for name, m := range readmeModels() {
		data, err := m.Bytes()
		require.NoError(t, err)
		path := filepath.Join("..", "..", "testdata", "readme", name)
		if *update {
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}
		have, err := os.ReadFile(path)
		require.NoError(t, err, "go test ./cmd/graphc -run TestReadmeModels -update writes it")
		require.Equal(t, data, have, "%s is stale: go test ./cmd/graphc -run TestReadmeModels -update", path)
	}
}

// readmeDir makes the directory the README's commands run in: the repository's testdata and
// examples (linked, read only by the commands) and bin/graphc, the binary under test; the
// commands' outputs land in it.
func readmeDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"testdata", "examples"} {
		abs, err := filepath.Abs(filepath.Join("..", "..", sub))
		require.NoError(t, err)
		require.NoError(t, os.Symlink(abs, filepath.Join(dir, sub)))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "bin"), 0o755))
	require.NoError(t, os.Symlink(graphcBin, filepath.Join(dir, "bin", "graphc")))
	return dir
}

// matchTranscript checks output against a README transcript: equal lines, or, when the
// transcript has "..." lines, its other lines in order with anything where the dots are.
func matchTranscript(t *testing.T, transcript []string, output, cmd string) {
	t.Helper()
	got := strings.Split(strings.TrimRight(output, "\n"), "\n")
	shortened := false
	for _, l := range transcript {
		shortened = shortened || strings.TrimSpace(l) == "..."
	}
	if !shortened {
		require.Equal(t, strings.Join(transcript, "\n"), strings.Join(got, "\n"),
			"the README's transcript of %q (mark omitted lines with ...)", cmd)
		return
	}
	k := 0
	for _, l := range transcript {
		if strings.TrimSpace(l) == "..." {
			continue
		}
		for k < len(got) && got[k] != l {
			k++
		}
		require.Less(t, k, len(got), "the README's transcript of %q: line %q is not in the output (in order):\n%s", cmd, l, output)
		k++
	}
}

func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	cmds := readmeCommands(t, string(readme))
	require.GreaterOrEqual(t, len(cmds), 15, "the README's tour lost its commands")
	dir := readmeDir(t)
	_, clangErr := e2e.Clang()
	for _, c := range cmds {
		t.Run(c.line, func(t *testing.T) {
			if c.shell {
				runReadmeShell(t, dir, c.line)
				return
			}
			if clangErr != nil && (contains(c.args, "--emit=obj") || contains(c.args, "--emit=asm") || contains(c.args, "--emit=lib") || c.args[0] == "run") {
				t.Skip(clangErr)
			}
			out := ""
			for i, a := range c.args {
				if a == "-o" && i+1 < len(c.args) && c.args[i+1] != "-" && c.args[i+1] != os.DevNull {
					out = filepath.Join(dir, c.args[i+1])
					os.Remove(out)
				}
			}
			stdout, stderr, code := runCLI(t, dir, c.args...)
			// a transcript that shows graphc's error line shows a failing command
			failing := len(c.transcript) > 0 && strings.HasPrefix(c.transcript[0], "graphc: ")
			if failing {
				require.NotEqual(t, 0, code, "the README shows %q failing", c.line)
			} else {
				require.Equal(t, 0, code, "stderr:\n%s", stderr)
				require.NotContains(t, stderr, "warning", "a README example should run cleanly")
			}
			if out != "" && !failing {
				info, err := os.Stat(out)
				require.NoError(t, err, "the command writes %s", out)
				require.Positive(t, info.Size(), "%s is empty", out)
			}
			if len(c.transcript) > 0 || strings.HasPrefix(c.line, "$ ") {
				matchTranscript(t, c.transcript, stderr+stdout, c.line)
			}
			if c.comment != "" && strings.Trim(c.comment, "0123456789") == "" {
				require.Equal(t, c.comment, strings.TrimSpace(stdout), "the README says %q prints %s", c.line, c.comment)
			}
			switch {
			case contains(c.args, "--print-ir-after=die"):
				require.Contains(t, stderr, "IR Dump After die")
			case contains(c.args, "--report-dead"):
				require.Contains(t, stderr, "dead iterations (die):")
			}
			if contains(c.args, "--pass-timing") {
				require.Contains(t, stderr, "Pass execution timing report")
				require.Contains(t, stderr, "compile phases: import")
			}
			if c.args[0] == "calc" && strings.HasPrefix(c.args[1], "codegen") {
				require.Contains(t, stdout, "for (int")
			}
		})
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// runReadmeShell runs a clang-19 or qemu-hexagon line of the README with sh, where its tools
// are installed.
func runReadmeShell(t *testing.T, dir, line string) {
	t.Helper()
	for _, tool := range []string{"clang-19", "qemu-hexagon"} {
		if strings.Contains(line, tool+" ") {
			if _, err := exec.LookPath(tool); err != nil {
				t.Skip(err)
			}
		}
	}
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s\n%s", line, out)
	if strings.Contains(line, "./caller") {
		require.Contains(t, string(out), "y[0][1] = -3", "the caller prints A·B's element (0, 1)")
	}
}
