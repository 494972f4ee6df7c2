// This file holds the naming rule both formats apply to the names they take from a model.

package importer

import "strings"

// Ident returns s as an IR identifier (the graph text's rule, which symbolic dims and value
// names follow): a letter or '_' first, then letters, digits, '_' and '.'; every other
// character becomes '_'. Both formats name symbolic dims with it.
func Ident(s string) string {
	var sb strings.Builder
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if letter || i > 0 && (c == '.' || c >= '0' && c <= '9') {
			sb.WriteRune(c)
		} else {
			sb.WriteRune('_')
		}
	}
	return sb.String()
}
