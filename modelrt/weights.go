// This file maps the weights file of a module compiled with --weights and checks its header
// (lower.Weights: the magic GRAPHCW1, the size and the layout fingerprint).

package modelrt

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// weightsMagic starts every weights file (lower.WeightsMagic).
const weightsMagic = "GRAPHCW1"

type weightsFile struct {
	data []byte
	p    unsafe.Pointer
}

// mapWeights maps the file at path read-only after checking its header against want.
func mapWeights(path string, want *WeightsInfo) (*weightsFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("modelrt: weights: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("modelrt: weights: %w", err)
	}
	if st.Size() != want.Bytes {
		return nil, fmt.Errorf("modelrt: weights file %s has %d bytes, the module's has %d: %w", path, st.Size(), want.Bytes, ErrWeights)
	}
	if st.Size() < 128 {
		return nil, fmt.Errorf("modelrt: weights file %s has %d bytes, less than its 128-byte header: %w", path, st.Size(), ErrWeights)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("modelrt: mapping the weights file %s: %w", path, err)
	}
	w := &weightsFile{data: data, p: unsafe.Pointer(&data[0])}
	magic, fp := string(data[:8]), binary.LittleEndian.Uint64(data[16:24])
	if magic != weightsMagic || fp != want.Fingerprint {
		w.close()
		return nil, fmt.Errorf("modelrt: %s is not the weights file of this module (magic %q, fingerprint 0x%016x; want %q, 0x%016x): %w",
			path, magic, fp, weightsMagic, want.Fingerprint, ErrWeights)
	}
	return w, nil
}

func (w *weightsFile) close() error {
	if w.data == nil {
		return nil
	}
	err := syscall.Munmap(w.data)
	w.data, w.p = nil, nil
	return err
}
