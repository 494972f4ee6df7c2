/* A caller of a module whose output extent the data decides (a bounded dim): the coordinates of
 * the non-zero elements of a 4x6 input (testdata/models/nonzero.onnx).
 *   bin/graphc testdata/models/nonzero.onnx --emit=header -o model.h
 *   bin/graphc testdata/models/nonzero.onnx -o model.ll
 *   clang -O2 -I. main.c model.ll -o caller
 */
#include <stdio.h>
#include <stdlib.h>
#include "model.h"

int main(void) {
  float x[MAIN_GRAPH_IN0_ELEMENTS] = {0};
  x[1] = 2.0f;  /* row 0, column 1 */
  x[14] = -1.0f; /* row 2, column 2 */
  x[23] = 0.5f; /* row 3, column 5 */
  /* the coordinates, allocated at the bound (every element non-zero) */
  int64_t *y = malloc(sizeof(int64_t) * MAIN_GRAPH_OUT0_MAX_ELEMENTS);
  int64_t n; /* the bounded dim's out-parameter: the number of non-zeros */
  int64_t size = main_graph_workspace_size();
  void *ws = aligned_alloc(128, size > 0 ? (size + 127) / 128 * 128 : 128);
  if (!y || !ws || main_graph(x, y, &n, ws) != 0) return 1;
  /* y holds MAIN_GRAPH_OUT0_ELEMENTS(n) elements: a dense 2 x n array */
  printf("%lld non-zeros:", (long long)n);
  for (int64_t k = 0; k < n; k++) printf(" (%lld, %lld)", (long long)y[k], (long long)y[n + k]);
  printf("\n");
  free(y);
  free(ws);
  return 0;
}
