// This file holds Notes, the per-op notes of a format's op table (limitations and how each op
// is built), from which `graphc ops` and the generated op documents are written.

package importer

// Notes maps an op name to its note.
type Notes map[string]string

// Add gives each of names the note. Noting an op twice is a programming error of the op
// files (they note their ops at init), so it panics naming the format and the op.
func (n Notes) Add(format, note string, names ...string) {
	for _, name := range names {
		if _, ok := n[name]; ok {
			panic(format + ": op " + name + " noted twice")
		}
		n[name] = note
	}
}
