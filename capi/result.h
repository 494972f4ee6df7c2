/* The layout of a compile result, private to libgraphc (graphc.h declares it opaque). */
#ifndef GRAPHC_CAPI_RESULT_H
#define GRAPHC_CAPI_RESULT_H

#include <stddef.h>
#include <stdlib.h>

struct graphc_result {
  int status;
  char *error;
  char *module;
  size_t module_len;
  char *header;
  size_t header_len;
  char *diagnostics;
  size_t diagnostics_len;
  char *dead_report;
  size_t dead_report_len;
};

#endif
