/* Exercises libgraphc from C: compile a model from a file and from memory, read every buffer of
 * the result, and check that errors come back as codes and messages. Usage: capi_test MODEL.onnx
 * Prints "ok" and exits 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "graphc.h"

static int failures;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL line %d: ", __LINE__);         \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      failures++;                                          \
    }                                                      \
  } while (0)

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc(*len);
  if (fread(p, 1, *len, f) != *len) { free(p); p = NULL; }
  fclose(f);
  return p;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  printf("%s\n", graphc_version());

  /* from a file, with options: the last row of the triangle */
  const char *keys[] = {"require", "mcpu"};
  const char *vals[] = {"Y[i, j] : i = 15", "x86-64-v3"};
  graphc_result *r = NULL;
  int st = graphc_compile_file(argv[1], keys, vals, 2, &r);
  CHECK(st == GRAPHC_OK, "compile_file: %d %s", st, graphc_result_error(r));
  CHECK(graphc_result_status(r) == GRAPHC_OK, "status");
  size_t n = 0;
  const char *mod = graphc_result_module(r, &n);
  CHECK(mod && n > 0 && strlen(mod) == n, "module length %zu", n);
  CHECK(mod && strstr(mod, "define i32 @main_graph("), "module has no entry");
  CHECK(mod && strstr(mod, "\"target-cpu\"=\"x86-64-v3\""), "mcpu not applied");
  const char *hdr = graphc_result_header(r, &n);
  CHECK(hdr && strstr(hdr, "#define MAIN_GRAPH_OUT0_ELEMENTS") && strlen(hdr) == n, "header: %s", hdr);
  const char *dead = graphc_result_dead_report(r, &n);
  CHECK(dead && strstr(dead, "dead iterations"), "dead report: %s", dead ? dead : "(null)");
  CHECK(strcmp(graphc_result_error(r), "") == 0, "error after success: %s", graphc_result_error(r));
  graphc_result_free(r);

  /* from memory, as a shared library */
  size_t len = 0;
  char *bytes = read_file(argv[1], &len);
  CHECK(bytes != NULL, "read %s", argv[1]);
  const char *k2[] = {"emit"};
  const char *v2[] = {"lib"};
  st = graphc_compile_bytes(bytes, len, "onnx", k2, v2, 1, &r);
  CHECK(st == GRAPHC_OK, "compile_bytes: %d %s", st, graphc_result_error(r));
  mod = graphc_result_module(r, &n);
  CHECK(mod && n > 4 && memcmp(mod, "\x7f" "ELF", 4) == 0, "emit=lib is not an ELF file");
  graphc_result_free(r);

  /* errors: an unknown option, a malformed model, a bad format, NULL arguments */
  const char *k3[] = {"mcpuu"};
  const char *v3[] = {"native"};
  st = graphc_compile_file(argv[1], k3, v3, 1, &r);
  CHECK(st == GRAPHC_ERR_USAGE, "unknown option: %d", st);
  CHECK(strstr(graphc_result_error(r), "unknown option \"mcpuu\" (did you mean \"mcpu\"?)"), "message: %s", graphc_result_error(r));
  CHECK(graphc_result_module(r, &n) == NULL && n == 0, "module after failure");
  graphc_result_free(r);
  st = graphc_compile_bytes("garbage", 7, "onnx", NULL, NULL, 0, &r);
  CHECK(st == GRAPHC_ERR_INPUT, "garbage: %d", st);
  CHECK(strlen(graphc_result_error(r)) > 0, "no message for garbage");
  graphc_result_free(r);
  st = graphc_compile_bytes(bytes, len, "docx", NULL, NULL, 0, &r);
  CHECK(st == GRAPHC_ERR_USAGE, "format: %d", st);
  graphc_result_free(r);
  st = graphc_compile_file("/nonexistent/model.onnx", NULL, NULL, 0, &r);
  CHECK(st == GRAPHC_ERR_INPUT, "missing file: %d", st);
  graphc_result_free(r);
  CHECK(graphc_compile_file(argv[1], NULL, NULL, 0, NULL) == GRAPHC_ERR_ARGUMENT, "NULL out");
  st = graphc_compile_file(NULL, NULL, NULL, 0, &r);
  CHECK(st == GRAPHC_ERR_ARGUMENT, "NULL path: %d", st);
  graphc_result_free(r);
  st = graphc_compile_file(argv[1], NULL, NULL, 3, &r);
  CHECK(st == GRAPHC_ERR_USAGE, "NULL keys with a count: %d", st);
  graphc_result_free(r);
  graphc_result_free(NULL);
  free(bytes);
  if (failures) return 1;
  printf("ok\n");
  return 0;
}
