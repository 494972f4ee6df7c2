package main

// This file runs every graphc command the README shows, as written, so that the documentation
// cannot drift from the tool: each must exit 0 and write what it promises; a transcript shown
// after a "$ graphc" line must appear in the command's output; a calc line whose comment is a
// number must print that number.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/graphc/graphc/internal/e2e"
	"github.com/graphc/graphc/internal/onnxgen"
	"github.com/graphc/graphc/ir"
	"github.com/graphc/graphc/modelrt"
)

// readmeCommand is one command line of a README code block.
type readmeCommand struct {
	line       string   // as written, without its comment
	args       []string // the words after the program name
	comment    string   // the text after "#", if any
	transcript []string // for "$ graphc" lines: the output lines shown after it ("..." lines dropped)
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
		case strings.HasPrefix(l, "$ graphc "):
			rest, transcript = strings.TrimPrefix(l, "$ graphc "), true
		default:
			continue
		}
		words, comment, err := shellWords(rest)
		require.NoError(t, err, "README line %d: %s", i+1, l)
		c := readmeCommand{line: strings.TrimSpace(strings.SplitN(l, " #", 2)[0]), args: words, comment: comment}
		if transcript {
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "```") {
				i++
				if s := strings.TrimSpace(lines[i]); s != "..." && s != "" {
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

// readmeFixtures writes the files the README's commands name into dir.
func readmeFixtures(t *testing.T, dir string) {
	t.Helper()
	writeModel(t, dir, "model.onnx", onnxgen.MatMulTrilu(512, true))
	pbtxt, err := os.ReadFile("../../testdata/models/tf/last_row_logits.pbtxt")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "graph.pbtxt"), pbtxt, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "prog.graph"), []byte(`graph @prog[N](%A: f32[N, N], %B: f32[N, N]) {
  %C = matmul(%A, %B) : f32[N, N]
  %Y = trilu(%C) {upper = 1} : f32[N, N]
  return %Y
}
`), 0o644))
	// the paths the README gives relative to the repository root
	// a model whose symbolic dims must be bound (a flatten of N×M), and one with two ops graphc
	// does not support, for the README's transcript of mistakes
	flat := onnxgen.New("flatten", 17)
	flat.Input("X", ir.F32, "N", "M")
	minus1 := ir.NewTensor(ir.I64, []int64{1})
	minus1.I[0] = -1
	flat.Init("minus1", minus1)
	flat.Node("Reshape", "flatten", []string{"X", "minus1"}, []string{"F"})
	flat.Node("Relu", "relu", []string{"F"}, []string{"Y"})
	flat.Output("Y", ir.F32, "NM")
	writeModel(t, dir, "flatten.onnx", flat)
	two := onnxgen.New("two", 17)
	two.Input("S", ir.F32, 4)
	two.Node("StringSplit", "split", []string{"S"}, []string{"A"})
	two.Node("StringNormalizer", "norm", []string{"A"}, []string{"B"})
	two.Node("StringSplit", "split_2", []string{"B"}, []string{"Y"})
	two.Output("Y", ir.F32, 4)
	writeModel(t, dir, "text.onnx", two)
	lin := onnxgen.New("linear", 17)
	lin.Input("X", ir.F32, 4, 64)
	lin.Init("W", ir.NewTensor(ir.F32, []int64{64, 64}))
	lin.Node("MatMul", "linear", []string{"X", "W"}, []string{"Y"})
	lin.Output("Y", ir.F32, 4, 64)
	writeModel(t, dir, "linear.onnx", lin)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "testdata", "models"), 0o755))
	model, err := os.ReadFile("../../testdata/models/matmul_trilu.onnx")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", "models", "matmul_trilu.onnx"), model, 0o644))
	// graphc run's inputs, and a model with its test data set
	for _, name := range []string{"a.npy", "b.npy"} {
		require.NoError(t, writeNpy(filepath.Join(dir, name), modelrt.New([]int64{512, 512}, make([]float32, 512*512))))
	}
	cdir := filepath.Join(dir, "testdata", "realmodels", "cnn_tiny")
	require.NoError(t, os.MkdirAll(filepath.Join(cdir, "test_data_set_0"), 0o755))
	for _, f := range []string{"model.onnx", "test_data_set_0/input_0.pb", "test_data_set_0/output_0.pb"} {
		data, err := os.ReadFile("../../testdata/realmodels/cnn_tiny/" + f)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(cdir, f), data, 0o644))
	}
	qdir := filepath.Join(dir, "testdata", "realmodels", "qcnn_tiny")
	require.NoError(t, os.MkdirAll(qdir, 0o755))
	qcnn, err := os.ReadFile("../../testdata/realmodels/qcnn_tiny/model.onnx")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(qdir, "model.onnx"), qcnn, 0o644))
}

func TestReadmeCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	cmds := readmeCommands(t, string(readme))
	require.GreaterOrEqual(t, len(cmds), 15, "the README's tour lost its commands")
	dir := t.TempDir()
	readmeFixtures(t, dir)
	_, clangErr := e2e.Clang()
	for _, c := range cmds {
		t.Run(c.line, func(t *testing.T) {
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
			for _, l := range c.transcript {
				require.Contains(t, stderr+stdout, l, "the README's transcript of %q", c.line)
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
