/* The accessors of a compile result (graphc.h). */
#include "graphc.h"
#include "result.h"

int graphc_result_status(const graphc_result *r) { return r ? r->status : GRAPHC_ERR_ARGUMENT; }

const char *graphc_result_error(const graphc_result *r) {
  if (!r) return "graphc: NULL result";
  return r->error ? r->error : "";
}

static const char *buffer(const char *p, size_t n, size_t *len) {
  if (len) *len = p ? n : 0;
  return p;
}

const char *graphc_result_module(const graphc_result *r, size_t *len) {
  return r ? buffer(r->module, r->module_len, len) : buffer(NULL, 0, len);
}

const char *graphc_result_header(const graphc_result *r, size_t *len) {
  return r ? buffer(r->header, r->header_len, len) : buffer(NULL, 0, len);
}

const char *graphc_result_diagnostics(const graphc_result *r, size_t *len) {
  return r ? buffer(r->diagnostics, r->diagnostics_len, len) : buffer(NULL, 0, len);
}

const char *graphc_result_dead_report(const graphc_result *r, size_t *len) {
  return r ? buffer(r->dead_report, r->dead_report_len, len) : buffer(NULL, 0, len);
}

void graphc_result_free(graphc_result *r) {
  if (!r) return;
  free(r->error);
  free(r->module);
  free(r->header);
  free(r->diagnostics);
  free(r->dead_report);
  free(r);
}
