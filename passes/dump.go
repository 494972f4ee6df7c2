// This file writes IR dumps to numbered files, one per pass boundary.

package passes

import (
	"fmt"
	"os"
	"path/filepath"
)

func writeDumpFile(dir string, seq int, when, pass, text string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := filepath.Join(dir, fmt.Sprintf("%03d_%s_%s.graph", seq, when, pass))
	return os.WriteFile(name, []byte(text), 0o644)
}
