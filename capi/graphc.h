/* graphc.h: the C API of the graphc compiler (libgraphc.so, built with
 *   go build -buildmode=c-shared -o libgraphc.so ./capi
 * ). It compiles ONNX models, TensorFlow GraphDefs and graphc IR text to LLVM IR (or, through
 * clang-19, to assembly, an object file or a shared library) in the calling process.
 *
 * Every function returns a status code and never aborts the host: a bug inside graphc comes
 * back as GRAPHC_ERR_INTERNAL with its message. A compile always stores a result in *out
 * (when out is not NULL), even on failure, so that the message can be read; the caller frees
 * it with graphc_result_free. The buffers a result returns live until then.
 *
 * Options are key/value pairs, the long flags of the graphc command line without "--":
 *   target      x86-64 | hexagon                 mcpu      CPU name or native
 *   mattr       +a,-b                            entry     entry function name (main_graph)
 *   pipeline    passes, comma-separated ("" = none)
 *   require     'OUT[i, j] : constraints' (repeatable: one pair per region)
 *   dim         NAME=VALUE (repeatable)          outputs   TensorFlow output names, comma-separated
 *   weights     FILE: keep the weights out of the module, written to FILE
 *   no-zero-skip  1 to keep IEEE results for inf and NaN inputs
 *   emit        llvm (default) | asm | obj | lib: what graphc_result_module holds (asm, obj and
 *               lib run clang-19; lib exports ENTRY_signature for graphc's Go loader)
 * An unknown key is GRAPHC_ERR_USAGE.
 */
#ifndef GRAPHC_H
#define GRAPHC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes (the exit statuses of the graphc command). */
#define GRAPHC_OK 0
#define GRAPHC_ERR_INPUT 1    /* bad or unsupported model, or a file that cannot be read */
#define GRAPHC_ERR_USAGE 2    /* bad options */
#define GRAPHC_ERR_INTERNAL 3 /* a bug in graphc (the message says where) */
#define GRAPHC_ERR_ARGUMENT 4 /* a NULL pointer or negative count where one is not allowed */

typedef struct graphc_result graphc_result;

/* Compiles the model file at path (.onnx, .pb, .pbtxt or .graph). keys and values hold
 * n_options pairs (both may be NULL when n_options is 0). */
int graphc_compile_file(const char *path, const char *const *keys, const char *const *values, int n_options,
                        graphc_result **out);

/* Compiles a model held in memory; format is the extension it would have as a file: "onnx",
 * "pb", "pbtxt" or "graph". An ONNX model whose weights live in external data files must be
 * compiled from its file (graphc_compile_file), where the files beside it are found. */
int graphc_compile_bytes(const void *data, size_t len, const char *format, const char *const *keys,
                         const char *const *values, int n_options, graphc_result **out);

/* The status of the compile that made r (GRAPHC_OK or an error code). */
int graphc_result_status(const graphc_result *r);

/* The error message, "" after success. */
const char *graphc_result_error(const graphc_result *r);

/* The compiled module (LLVM IR text, or what the emit option chose); *len receives its size in
 * bytes when len is not NULL. Text buffers are also NUL-terminated. NULL after a failure. */
const char *graphc_result_module(const graphc_result *r, size_t *len);

/* The C header declaring the entry (--emit=header). */
const char *graphc_result_header(const graphc_result *r, size_t *len);

/* The compiler's warnings, one per line ("" when none). */
const char *graphc_result_diagnostics(const graphc_result *r, size_t *len);

/* The dead-iteration report of DIE (--report-dead), "" when nothing is dead. */
const char *graphc_result_dead_report(const graphc_result *r, size_t *len);

/* Frees a result and its buffers (NULL is allowed). */
void graphc_result_free(graphc_result *r);

/* graphc's version line (a static string). */
const char *graphc_version(void);

#ifdef __cplusplus
}
#endif

#endif
