/* A complete C caller of a graphc-compiled model: Y = Trilu_upper(A · B) with A, B 512×512.
 *
 *   bin/graphc testdata/models/matmul_trilu.onnx -o model.ll
 *   bin/graphc testdata/models/matmul_trilu.onnx --emit=header -o model.h
 *   clang-19 -O2 -I. examples/c-caller/main.c model.ll -o caller && ./caller
 */
#include <stdio.h>
#include <stdlib.h>
#include "model.h"

#define N MAIN_GRAPH_OUT0_DIM0 /* the header's shape macros: 512 */

int main(void) {
  float *a = malloc(sizeof(float) * MAIN_GRAPH_IN0_ELEMENTS), *b = malloc(sizeof(float) * MAIN_GRAPH_IN1_ELEMENTS);
  float *y = malloc(sizeof(float) * MAIN_GRAPH_OUT0_ELEMENTS);
  for (int i = 0; i < N * N; i++) {
    a[i] = (float)(i % 7) - 3.0f;
    b[i] = (float)(i % 5) * 0.5f;
  }
  /* the workspace holds the intermediates: 128-byte aligned, uninitialised */
  int64_t size = main_graph_workspace_size();
  void *ws = aligned_alloc(128, size > 0 ? (size + 127) / 128 * 128 : 128);
  int32_t rc = main_graph(a, b, y, ws);
  if (rc != 0) {
    fprintf(stderr, "main_graph failed: %d\n", rc);
    return 1;
  }
  /* y[i][j] for j >= i is (A·B)[i][j]; below the diagonal it is 0 */
  double sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) sum += y[i * N + j];
  printf("workspace %lld bytes, y[0][1] = %g, y[1][0] = %g, sum = %.1f\n", (long long)size, y[1], y[N], sum);
  free(a), free(b), free(y), free(ws);
  return 0;
}
