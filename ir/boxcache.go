// This file caches the box domains that op constructors build. Importing a model of repeated
// layers builds the same few boxes thousands of times (and the verifier builds them again),
// and each costs exact volume work; sets are immutable, so ops can share them.

package ir

import (
	"encoding/binary"
	"sync"

	"github.com/graphc/graphc/volume"
)

// maxCachedBoxes bounds the cache; it is emptied when full.
const maxCachedBoxes = 4096

var boxCache = struct {
	sync.Mutex
	m map[string]volume.Set
}{m: map[string]volume.Set{}}

// cachedBox returns volume.Box(params, "", dims, extents), built once per distinct argument.
func cachedBox(params, dims []string, extents []volume.Aff) volume.Set {
	key := boxKey(params, dims, extents)
	boxCache.Lock()
	s, ok := boxCache.m[string(key)]
	boxCache.Unlock()
	if ok {
		return s
	}
	s = volume.Box(params, "", dims, extents)
	boxCache.Lock()
	if len(boxCache.m) >= maxCachedBoxes {
		clear(boxCache.m)
	}
	boxCache.m[string(key)] = s
	boxCache.Unlock()
	return s
}

// boxKey encodes the arguments of a box exactly.
func boxKey(params, dims []string, extents []volume.Aff) []byte {
	b := make([]byte, 0, 64)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	var aff func(a volume.Aff)
	aff = func(a volume.Aff) {
		b = binary.AppendVarint(b, a.Const)
		b = binary.AppendUvarint(b, uint64(len(a.Dims)))
		for _, c := range a.Dims {
			b = binary.AppendVarint(b, c)
		}
		b = binary.AppendUvarint(b, uint64(len(a.Params)))
		for _, p := range a.Params {
			str(p.Name)
			b = binary.AppendVarint(b, p.Coef)
		}
		b = binary.AppendUvarint(b, uint64(len(a.Floors)))
		for _, f := range a.Floors {
			aff(f.Num)
			b = binary.AppendVarint(b, f.Den)
			b = binary.AppendVarint(b, f.Coef)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(params)))
	for _, p := range params {
		str(p)
	}
	if dims == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
	}
	b = binary.AppendUvarint(b, uint64(len(dims)))
	for _, d := range dims {
		str(d)
	}
	b = binary.AppendUvarint(b, uint64(len(extents)))
	for _, e := range extents {
		aff(e)
	}
	return b
}
