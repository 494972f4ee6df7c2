package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// panicWriter panics on every write: a stand-in for a bug anywhere in the compiler.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom") }

// TestPanicIsExitStatus3: a panic becomes exit status 3 and one message asking for a report
// that names a crash file holding the stack; no goroutine dump reaches the terminal.
func TestPanicIsExitStatus3(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("GRAPHC_TRACEBACK", "")
	var stderr bytes.Buffer
	code := run([]string{"version"}, strings.NewReader(""), panicWriter{}, &stderr)
	require.Equal(t, exitInternal, code)
	msg := stderr.String()
	require.Contains(t, msg, "graphc: internal error: boom\n")
	require.Contains(t, msg, "This is a bug in graphc; please report it")
	require.NotContains(t, msg, "goroutine")
	m := regexp.MustCompile(`(\S+graphc-crash-\S+\.txt)`).FindStringSubmatch(msg)
	require.NotNil(t, m, msg)
	require.Equal(t, tmp, filepath.Dir(m[1]))
	crash, err := os.ReadFile(m[1])
	require.NoError(t, err)
	require.Contains(t, string(crash), "goroutine")
	require.Contains(t, string(crash), "panicWriter")

	// GRAPHC_TRACEBACK=1 prints the stack instead
	t.Setenv("GRAPHC_TRACEBACK", "1")
	stderr.Reset()
	require.Equal(t, exitInternal, run([]string{"version"}, strings.NewReader(""), panicWriter{}, &stderr))
	require.Contains(t, stderr.String(), "panicWriter")
}
