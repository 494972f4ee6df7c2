// This file holds the table of onnxruntime's com.microsoft operators (the transformer
// optimizer's, Optimum's and onnxruntime-genai's model builder's fused ops). They live in a table
// of their own, keyed by domain, because some share a name with an ONNX op of other semantics
// (com.microsoft.RotaryEmbedding takes position_ids as input 1, ONNX's as input 3). Their
// semantics are those of onnxruntime's ContribOperators documentation and CPU kernels; each
// imports as catalogue ops (ops_msft_*.go).

package onnx

import (
	kit "github.com/graphc/graphc/frontend/importer"
)

// MsftDomain is the domain of onnxruntime's contrib operators.
const MsftDomain = "com.microsoft"

// domainOp is an importer of an op of another domain, with its note for docs/ops.md.
type domainOp struct {
	Import func(c *nodeCtx) error
	Note   string
}

// domainOps maps a domain to its ops (com.microsoft's); the ops of the default domain and of
// the ONNX preview domains are in opTable.
var domainOps = map[string]map[string]domainOp{}

// registerDomainOp registers the importer of op name of domain (version 1 of that domain's
// opset, the only one com.microsoft has).
func registerDomainOp(domain, name string, fn func(c *nodeCtx) error, note string) {
	if domainOps[domain] == nil {
		domainOps[domain] = map[string]domainOp{}
	}
	if _, dup := domainOps[domain][name]; dup {
		panic("onnx: op " + domain + "." + name + " registered twice")
	}
	domainOps[domain][name] = domainOp{Import: fn, Note: note}
}

// lookupDomainOp returns the importer of op of a domain of its own (ok=false for the default
// and preview domains, or an op the domain does not have).
func lookupDomainOp(domain, op string) (func(c *nodeCtx) error, bool) {
	d, ok := domainOps[domain][op]
	return d.Import, ok
}

// DomainOpInfo describes the supported ops of the domains that have their own table
// (com.microsoft), sorted by domain and name; Since and Until are the domain's opset 1.
func DomainOpInfo() []DomainOpEntry {
	var out []DomainOpEntry
	for _, dom := range kit.SortedKeys(domainOps) {
		for _, name := range kit.SortedKeys(domainOps[dom]) {
			out = append(out, DomainOpEntry{Domain: dom, OpInfo: OpInfo{Name: name, Since: 1, Until: 1, Note: domainOps[dom][name].Note}})
		}
	}
	return out
}

// DomainOpEntry is one op of a domain with its own table.
type DomainOpEntry struct {
	Domain string
	OpInfo
}
