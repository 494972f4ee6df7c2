package passes

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/passes.md")

// MarkdownReference returns the pass reference generated from the pass table.
func markdownReference() string {
	var sb strings.Builder
	sb.WriteString("# Pass reference\n\n<!-- Generated from the pass table (passes/manager.go) by `go test ./passes -run PassesDoc -update-docs`; do not edit. -->\n\n")
	fmt.Fprintf(&sb, "The default pipeline is `--pipeline=%s`; `--pipeline=` runs no pass. A pass's name is its CLI word, the name of its IR dumps (`--print-ir-after=NAME`) and its test directory (`testdata/passes/NAME`).\n\n", DefaultPipeline)
	for _, p := range registry {
		fmt.Fprintf(&sb, "## %s\n\n%s.\n\n%s\n\n", p.Name, strings.ToUpper(p.Summary[:1])+p.Summary[1:], p.Doc)
	}
	sb.WriteString("## Ordering constraints\n\n| before | after | why |\n|---|---|---|\n")
	for _, o := range order {
		fmt.Fprintf(&sb, "| %s | %s | %s |\n", o.Before, o.After, o.Why)
	}
	return sb.String()
}

func TestPassesDoc(t *testing.T) {
	const path = "../docs/passes.md"
	want := markdownReference()
	if *updateDocs {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != want {
		t.Fatalf("docs/passes.md is out of date: run go test ./passes -run PassesDoc -update-docs")
	}
}
