// This file is numpy's legacy random generator (np.random.seed, np.random.uniform): MT19937
// seeded by init_genrand, doubles from 53 random bits. Seeded training-mode Dropout draws its
// mask with it, as the ONNX reference does, so that a seeded model has one deterministic
// meaning and its node tests can be checked.

package onnx

// mt19937 is the Mersenne Twister state.
type mt19937 struct {
	key [624]uint32
	pos int
}

// newMT19937 seeds the generator as numpy's RandomState(seed) does for a seed below 2^32.
func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{pos: len(mt19937{}.key)}
	for i := range m.key {
		m.key[i] = seed
		seed = 1812433253*(seed^(seed>>30)) + uint32(i) + 1
	}
	return m
}

// next returns the next 32 random bits.
func (m *mt19937) next() uint32 {
	const n, mid = 624, 397
	const upper, lower, matrixA = 0x80000000, 0x7fffffff, 0x9908b0df
	if m.pos == n {
		for i := 0; i < n; i++ {
			y := m.key[i]&upper | m.key[(i+1)%n]&lower
			v := m.key[(i+mid)%n] ^ y>>1
			if y&1 != 0 {
				v ^= matrixA
			}
			m.key[i] = v
		}
		m.pos = 0
	}
	y := m.key[m.pos]
	m.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	return y ^ y>>18
}

// uniform returns a double in [0, 1) from 53 random bits (numpy's random_sample).
func (m *mt19937) uniform() float64 {
	a, b := m.next()>>5, m.next()>>6
	return (float64(a)*67108864 + float64(b)) / 9007199254740992
}
