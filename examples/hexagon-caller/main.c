/* A freestanding caller of a graphc-compiled model on Hexagon, run under qemu-hexagon:
 * Y = Trilu_upper(A · B) with A, B 512×512, as examples/c-caller/main.c does on the host.
 * Hexagon code runs without a C library here: the program has its own _start, makes Linux
 * system calls with trap0 (what qemu-hexagon's user mode implements), and takes its buffers from
 * a static 128-byte aligned arena. graphc's Hexagon modules call no external function.
 *
 *   bin/graphc testdata/models/matmul_trilu.onnx --target=hexagon --mcpu=hexagonv67 -o model.ll
 *   bin/graphc testdata/models/matmul_trilu.onnx --target=hexagon --mcpu=hexagonv67 --emit=header -o model.h
 *   clang-19 --target=hexagon-unknown-linux-musl -mcpu=hexagonv67 -O2 -ffreestanding -nostdlib -static \
 *     -fuse-ld=lld -I. examples/hexagon-caller/main.c model.ll -o caller-hexagon
 *   qemu-hexagon -cpu v67 ./caller-hexagon
 */
#include <stddef.h>
#include <stdint.h>
#include "model.h"

#define N MAIN_GRAPH_OUT0_DIM0

static long sys3(long n, long a, long b, long c) {
  register long r0 __asm__("r0") = a;
  register long r1 __asm__("r1") = b;
  register long r2 __asm__("r2") = c;
  register long r6 __asm__("r6") = n;
  __asm__ volatile("trap0(#1)" : "+r"(r0) : "r"(r1), "r"(r2), "r"(r6) : "memory");
  return r0;
}
static void sys_write(const char *p, long n) { sys3(64 /* write */, 1, (long)p, n); }
static void sys_exit(int c) {
  sys3(94 /* exit_group */, c, 0, 0);
  for (;;) {}
}

/* the C library functions clang may call for struct copies and loops */
void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *a = d;
  const unsigned char *b = s;
  while (n--) *a++ = *b++;
  return d;
}
void *memset(void *d, int c, size_t n) {
  unsigned char *a = d;
  while (n--) *a++ = (unsigned char)c;
  return d;
}

static void put(const char *s) {
  long n = 0;
  while (s[n]) n++;
  sys_write(s, n);
}

/* put_half prints v, a multiple of 0.5, exactly */
static void put_half(float v) {
  char buf[32];
  int i = sizeof buf;
  long t = (long)(v * 2.0f);
  int neg = t < 0;
  if (neg) t = -t;
  buf[--i] = 0;
  buf[--i] = (t % 2) ? '5' : '0';
  buf[--i] = '.';
  t /= 2;
  do {
    buf[--i] = (char)('0' + t % 10);
    t /= 10;
  } while (t);
  if (neg) buf[--i] = '-';
  put(buf + i);
}

static float a[N * N] __attribute__((aligned(128)));
static float b[N * N] __attribute__((aligned(128)));
static float y[N * N] __attribute__((aligned(128)));
static unsigned char ws[1 << 20] __attribute__((aligned(128)));

void _start(void) {
  for (int i = 0; i < N * N; i++) {
    a[i] = (float)(i % 7) - 3.0f;
    b[i] = (float)(i % 5) * 0.5f;
  }
  if (main_graph_workspace_size() > (int64_t)sizeof ws || main_graph(a, b, y, ws) != 0) {
    put("main_graph failed\n");
    sys_exit(1);
  }
  put("y[0][1] = ");
  put_half(y[1]);
  put(", y[1][0] = ");
  put_half(y[N]);
  put("\n");
  sys_exit(0);
}
