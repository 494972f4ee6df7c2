// This file holds Config, the options every importer takes, and the reading of a model file
// or stream within the configured size limit.

package importer

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/graphc/graphc/ir"
)

// Config holds the options common to the importers: the symbolic dims bound at import and
// the limits on what a model may declare.
type Config struct {
	Dims   map[string]int64
	Limits ir.Limits
}

// NewConfig returns a Config with no dim bound and default limits (after Finish).
func NewConfig() Config { return Config{Dims: map[string]int64{}} }

// SetLimits sets the limits; zero fields keep their defaults, and a zero MaxFileBytes keeps
// the file size set before (WithMaxFileSize).
func (c *Config) SetLimits(l ir.Limits) {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = c.Limits.MaxFileBytes
	}
	c.Limits = l
}

// Finish fills in the default limits once every option is applied.
func (c *Config) Finish() { c.Limits = c.Limits.WithDefaults() }

// ReadFile reads the model file at path within the file-size limit, into a buffer of the
// file's size (io.ReadAll's doubling would copy a weight-heavy model several times).
func ReadFile(path string, l ir.Limits, invalid error) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > l.MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %w: file of %d bytes exceeds the limit of %d", path, invalid, ir.ErrLimit, st.Size(), l.MaxFileBytes)
	}
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, l.MaxFileBytes+1)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(buf.Len()) > l.MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %w: file exceeds the limit of %d bytes", path, invalid, ir.ErrLimit, l.MaxFileBytes)
	}
	return buf.Bytes(), nil
}

// ReadAll reads a model from r within the file-size limit; name is used in errors.
func ReadAll(r io.Reader, name string, l ir.Limits, invalid error) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, l.MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > l.MaxFileBytes {
		return nil, fmt.Errorf("%s: %w: %w: model exceeds the limit of %d bytes", name, invalid, ir.ErrLimit, l.MaxFileBytes)
	}
	return data, nil
}

// Configure applies a format's options to its config (a struct embedding Config, NewConfig's
// values first) and fills in the default limits.
func Configure[C interface{ Finish() }, O ~func(C)](c C, opts []O) C {
	for _, o := range opts {
		o(c)
	}
	c.Finish()
	return c
}

// Decode reads the model file at path within the limits (ReadFile) and decodes it; a decoding
// error is prefixed with path.
func Decode[M any](path string, l ir.Limits, invalid error, decode func([]byte) (M, error)) (M, error) {
	var zero M
	data, err := ReadFile(path, l, invalid)
	if err != nil {
		return zero, err
	}
	m, err := decode(data)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
