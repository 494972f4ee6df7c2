// This file loads target specifications: JSON files with inheritance, as TinyGo does.

package lower

import (
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

//go:embed targets/*.json
var targetFS embed.FS

// Target is a code generation target.
type Target struct {
	Name        string `json:"-"`
	Inherits    string `json:"inherits"`
	Triple      string `json:"llvm-target"`
	DataLayout  string `json:"data-layout"`
	CPU         string `json:"cpu"`
	Features    string `json:"features"`
	VectorBytes int    `json:"vector-bytes"`
	// Libm says whether the module may call the C math library (otherwise graphc emits its
	// own math functions and the module references no external symbol).
	Libm bool `json:"libm"`
}

// LoadTarget returns the named target with its inherited fields resolved.
func LoadTarget(name string) (*Target, error) {
	return loadTarget(name, 0)
}

func loadTarget(name string, depth int) (*Target, error) {
	if depth > 8 {
		return nil, fmt.Errorf("target %q: inheritance chain too deep", name)
	}
	data, err := targetFS.ReadFile("targets/" + name + ".json")
	if err != nil {
		return nil, fmt.Errorf("unknown target %q (targets: %s)", name, strings.Join(Targets(), ", "))
	}
	t := &Target{}
	if err := json.Unmarshal(data, t); err != nil {
		return nil, fmt.Errorf("target %q: %w", name, err)
	}
	if t.Inherits != "" {
		parent, err := loadTarget(t.Inherits, depth+1)
		if err != nil {
			return nil, err
		}
		merged := *parent
		if t.Triple != "" {
			merged.Triple = t.Triple
		}
		if t.DataLayout != "" {
			merged.DataLayout = t.DataLayout
		}
		if t.CPU != "" {
			merged.CPU = t.CPU
		}
		if t.Features != "" {
			merged.Features = t.Features
		}
		if t.VectorBytes != 0 {
			merged.VectorBytes = t.VectorBytes
		}
		t = &merged
	}
	t.Name = name
	return t, nil
}

// Targets lists the available target names.
func Targets() []string {
	ents, _ := targetFS.ReadDir("targets")
	var out []string
	for _, e := range ents {
		out = append(out, strings.TrimSuffix(e.Name(), ".json"))
	}
	sort.Strings(out)
	return out
}
