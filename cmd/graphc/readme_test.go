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
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "testdata", "models"), 0o755))
	model, err := os.ReadFile("../../testdata/models/matmul_trilu.onnx")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "testdata", "models", "matmul_trilu.onnx"), model, 0o644))
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
			if clangErr != nil && (contains(c.args, "--emit=obj") || contains(c.args, "--emit=asm") || contains(c.args, "--emit=lib")) {
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
			require.Equal(t, 0, code, "stderr:\n%s", stderr)
			require.NotContains(t, stderr, "warning", "a README example should run cleanly")
			if out != "" {
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
