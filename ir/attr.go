// This file holds op attributes: named integers, floats, strings and lists of them.

package ir

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// AttrKind is the kind of an attribute value.
type AttrKind uint8

// Attribute kinds.
const (
	AttrInt AttrKind = iota + 1
	AttrFloat
	AttrString
	AttrInts
	AttrFloats
	AttrStrings
)

// Attr is one attribute value.
type Attr struct {
	Kind    AttrKind
	Int     int64
	Float   float64
	Str     string
	Ints    []int64
	Floats  []float64
	Strings []string
}

// Attrs maps attribute names to values.
type Attrs map[string]Attr

// IntAttr, FloatAttr, StringAttr, IntsAttr, FloatsAttr and StringsAttr build attribute values.
func IntAttr(v int64) Attr         { return Attr{Kind: AttrInt, Int: v} }
func FloatAttr(v float64) Attr     { return Attr{Kind: AttrFloat, Float: v} }
func StringAttr(v string) Attr     { return Attr{Kind: AttrString, Str: v} }
func IntsAttr(v ...int64) Attr     { return Attr{Kind: AttrInts, Ints: v} }
func FloatsAttr(v ...float64) Attr { return Attr{Kind: AttrFloats, Floats: v} }
func StringsAttr(v ...string) Attr { return Attr{Kind: AttrStrings, Strings: v} }
func BoolAttr(v bool) Attr {
	if v {
		return IntAttr(1)
	}
	return IntAttr(0)
}

// Int returns attribute name as an integer, or def when absent.
func (a Attrs) Int(name string, def int64) int64 {
	if v, ok := a[name]; ok {
		switch v.Kind {
		case AttrInt:
			return v.Int
		case AttrFloat:
			return int64(v.Float)
		}
	}
	return def
}

// Float returns attribute name as a float, or def when absent.
func (a Attrs) Float(name string, def float64) float64 {
	if v, ok := a[name]; ok {
		switch v.Kind {
		case AttrFloat:
			return v.Float
		case AttrInt:
			return float64(v.Int)
		}
	}
	return def
}

// Str returns attribute name as a string, or def when absent.
func (a Attrs) Str(name, def string) string {
	if v, ok := a[name]; ok && v.Kind == AttrString {
		return v.Str
	}
	return def
}

// Ints returns attribute name as an integer list, or def when absent.
func (a Attrs) Ints(name string, def []int64) []int64 {
	if v, ok := a[name]; ok {
		switch v.Kind {
		case AttrInts:
			return v.Ints
		case AttrInt:
			return []int64{v.Int}
		}
	}
	return def
}

// Floats returns attribute name as a float list, or def when absent.
func (a Attrs) Floats(name string, def []float64) []float64 {
	if v, ok := a[name]; ok {
		switch v.Kind {
		case AttrFloats:
			return v.Floats
		case AttrInts:
			f := make([]float64, len(v.Ints))
			for i, x := range v.Ints {
				f[i] = float64(x)
			}
			return f
		}
	}
	return def
}

// Strings returns attribute name as a string list, or def when absent.
func (a Attrs) Strings(name string, def []string) []string {
	if v, ok := a[name]; ok && v.Kind == AttrStrings {
		return v.Strings
	}
	return def
}

// Has reports whether attribute name is set.
func (a Attrs) Has(name string) bool { _, ok := a[name]; return ok }

// Clone returns a copy of a.
func (a Attrs) Clone() Attrs {
	c := Attrs{}
	for k, v := range a {
		c[k] = v
	}
	return c
}

// Equal reports whether two attribute values are identical.
func (v Attr) Equal(w Attr) bool { return v.String() == w.String() }

// String prints the attribute value in the text format.
func (v Attr) String() string {
	switch v.Kind {
	case AttrInt:
		return strconv.FormatInt(v.Int, 10)
	case AttrFloat:
		return formatFloat(v.Float)
	case AttrString:
		return strconv.Quote(v.Str)
	case AttrInts:
		s := make([]string, len(v.Ints))
		for i, x := range v.Ints {
			s[i] = strconv.FormatInt(x, 10)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case AttrFloats:
		s := make([]string, len(v.Floats))
		for i, x := range v.Floats {
			s[i] = formatFloat(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	case AttrStrings:
		s := make([]string, len(v.Strings))
		for i, x := range v.Strings {
			s[i] = strconv.Quote(x)
		}
		return "[" + strings.Join(s, ", ") + "]"
	}
	return fmt.Sprintf("<attr kind %d>", v.Kind)
}

// formatFloat prints a float so that it parses back to the same bits and never looks like an
// integer (so that the attribute kind survives a round trip).
func formatFloat(f float64) string {
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEnN") {
		s += ".0"
	}
	return s
}

// String prints the attributes as {a = 1, b = [2, 3]} in name order ("" when empty).
func (a Attrs) String() string {
	if len(a) == 0 {
		return ""
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " = " + a[k].String()
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
