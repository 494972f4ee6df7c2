/* Calls through a function pointer whose argument list is only known at run time: a graphc
 * entry takes pointers and int64 dims, all passed as integer-class words. The pointer is cast
 * to a function of the next power of two of uintptr_t parameters (at most 1024): on the
 * x86-64 SysV and AArch64 ABIs the extra arguments are ignored by the callee and removed by the
 * caller, so every entry is called correctly whatever its arity. The argument array must hold
 * that many words. */
#ifndef GRAPHC_MODELRT_CALL_H
#define GRAPHC_MODELRT_CALL_H

#include <stdint.h>

#define MRT_P4 uintptr_t, uintptr_t, uintptr_t, uintptr_t
#define MRT_P8 MRT_P4, MRT_P4
#define MRT_P16 MRT_P8, MRT_P8
#define MRT_P32 MRT_P16, MRT_P16
#define MRT_P64 MRT_P32, MRT_P32
#define MRT_P128 MRT_P64, MRT_P64
#define MRT_P256 MRT_P128, MRT_P128
#define MRT_P512 MRT_P256, MRT_P256
#define MRT_P1024 MRT_P512, MRT_P512
#define MRT_A4(o) a[(o)], a[(o) + 1], a[(o) + 2], a[(o) + 3]
#define MRT_A8(o) MRT_A4(o), MRT_A4((o) + 4)
#define MRT_A16(o) MRT_A8(o), MRT_A8((o) + 8)
#define MRT_A32(o) MRT_A16(o), MRT_A16((o) + 16)
#define MRT_A64(o) MRT_A32(o), MRT_A32((o) + 32)
#define MRT_A128(o) MRT_A64(o), MRT_A64((o) + 64)
#define MRT_A256(o) MRT_A128(o), MRT_A128((o) + 128)
#define MRT_A512(o) MRT_A256(o), MRT_A256((o) + 256)
#define MRT_A1024(o) MRT_A512(o), MRT_A512((o) + 512)

#define MRT_CALLER(name, R)                                                          \
  static inline R name(void *f, int n, const uintptr_t *a) {                         \
    if (n <= 8) return ((R(*)(MRT_P8))f)(MRT_A8(0));                                 \
    if (n <= 16) return ((R(*)(MRT_P16))f)(MRT_A16(0));                              \
    if (n <= 32) return ((R(*)(MRT_P32))f)(MRT_A32(0));                              \
    if (n <= 64) return ((R(*)(MRT_P64))f)(MRT_A64(0));                              \
    if (n <= 128) return ((R(*)(MRT_P128))f)(MRT_A128(0));                           \
    if (n <= 256) return ((R(*)(MRT_P256))f)(MRT_A256(0));                           \
    if (n <= 512) return ((R(*)(MRT_P512))f)(MRT_A512(0));                           \
    return ((R(*)(MRT_P1024))f)(MRT_A1024(0));                                       \
  }

MRT_CALLER(mrt_call_i32, int32_t)
MRT_CALLER(mrt_call_i64, int64_t)

#endif
