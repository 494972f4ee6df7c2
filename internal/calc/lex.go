// This file splits calculator input into tokens; isl literals are kept whole, to be parsed by
// package volume.

package calc

import (
	"fmt"
	"strings"
)

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tLiteral // an isl set or map, "{ ... }" or "[params] -> { ... }"
	tPunct
)

type token struct {
	kind tokKind
	text string
	pos  int
}

// Error is a calculator error at a position of the input.
type Error struct {
	Line, Col int // 1-based
	Msg       string
	Err       error // the volume error behind Msg, if any (errors.Is(err, volume.ErrUnbounded))
}

func (e *Error) Error() string { return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg) }

// Unwrap returns the volume error behind e, if any.
func (e *Error) Unwrap() error { return e.Err }

// errAt builds an Error at byte offset pos of src.
func errAt(src string, pos int, format string, args ...any) *Error {
	pos = min(max(pos, 0), len(src))
	line := 1 + strings.Count(src[:pos], "\n")
	col := pos - strings.LastIndex(src[:pos], "\n")
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#': // comment to the end of the line, as in iscc
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '{' || c == '[':
			end, err := literalEnd(src, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{tLiteral, src[i:end], i})
			i = end
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] == '\'' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, token{tIdent, src[i:j], i})
			i = j
		default:
			matched := false
			for _, p := range []string{":=", "<=", ">=", "^-1", "(", ")", ";", "*", "+", "-", "<", ">", "=", "."} {
				if strings.HasPrefix(src[i:], p) {
					toks = append(toks, token{tPunct, p, i})
					i += len(p)
					matched = true
					break
				}
			}
			if !matched {
				return nil, errAt(src, i, "unexpected character %q", c)
			}
		}
	}
	return append(toks, token{tEOF, "", len(src)}), nil
}

// literalEnd returns the end of the isl literal starting at i: an optional parameter list
// "[...] ->" followed by a braced body.
func literalEnd(src string, i int) (int, error) {
	start := i
	if src[i] == '[' {
		j := strings.IndexByte(src[i:], ']')
		if j < 0 {
			return 0, errAt(src, start, "unterminated parameter list")
		}
		i += j + 1
		rest := strings.TrimLeft(src[i:], " \t\r\n")
		if !strings.HasPrefix(rest, "->") {
			return 0, errAt(src, i, "expected \"->\" after the parameter list")
		}
		i = len(src) - len(rest) + 2
		rest = strings.TrimLeft(src[i:], " \t\r\n")
		if !strings.HasPrefix(rest, "{") {
			return 0, errAt(src, i, "expected \"{\" after \"->\"")
		}
		i = len(src) - len(rest)
	}
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, errAt(src, start, "unterminated set or map (missing \"}\")")
}
