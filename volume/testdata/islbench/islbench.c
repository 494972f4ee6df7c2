/* islbench times isl 0.25 on the inputs of volume/bench_test.go, so that graphc's figures can
 * be compared with isl's on the same machine. BenchmarkISL (isl_bench_test.go) builds and runs it.
 *
 * Usage: islbench OP N, with the input texts on stdin, one per line (see bench_test.go):
 * domain, band, empty, access, out, req, pieces. It runs OP N times on inputs parsed afresh before
 * each run (isl caches facts on its objects, so reusing one input would time a warm cache), times
 * only the operation itself (including freeing its result), and prints "<total ns> <result>". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <isl/ctx.h>
#include <isl/set.h>
#include <isl/map.h>
#include <isl/aff.h>

enum { DOMAIN, BAND, EMPTY, ACCESS, OUT, REQ, PIECES, NTEXT };
static char *text[NTEXT];

static long long now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static isl_set *set(isl_ctx *ctx, int i) { return isl_set_read_from_str(ctx, text[i]); }
static isl_map *map(isl_ctx *ctx, int i) { return isl_map_read_from_str(ctx, text[i]); }

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: islbench OP N\n");
		return 2;
	}
	const char *op = argv[1];
	long n = atol(argv[2]);
	static char line[1 << 16];
	for (int i = 0; i < NTEXT; i++) {
		if (!fgets(line, sizeof line, stdin)) {
			fprintf(stderr, "islbench: missing input %d\n", i);
			return 2;
		}
		line[strcspn(line, "\n")] = 0;
		text[i] = strdup(line);
	}
	isl_ctx *ctx = isl_ctx_alloc();
	long long total = 0;
	char *result = NULL;
	for (long it = 0; it < n; it++) {
		isl_set *r = NULL;
		int b = -1;
		long long t0;
		if (!strcmp(op, "intersect")) {
			isl_set *x = set(ctx, DOMAIN), *y = set(ctx, BAND);
			t0 = now();
			r = isl_set_intersect(x, y);
		} else if (!strcmp(op, "subtract")) {
			isl_set *x = set(ctx, DOMAIN), *y = set(ctx, BAND);
			t0 = now();
			r = isl_set_subtract(x, y);
		} else if (!strcmp(op, "image")) {
			isl_set *x = set(ctx, DOMAIN);
			isl_map *m = map(ctx, ACCESS);
			t0 = now();
			r = isl_set_apply(x, m);
		} else if (!strcmp(op, "preimage")) {
			isl_set *x = set(ctx, REQ);
			isl_map *m = map(ctx, OUT);
			t0 = now();
			r = isl_set_apply(x, isl_map_reverse(m));
		} else if (!strcmp(op, "preimage-multi-aff")) {
			isl_set *x = set(ctx, REQ);
			isl_multi_aff *ma = isl_multi_aff_read_from_str(ctx, text[OUT]);
			t0 = now();
			r = isl_set_preimage_multi_aff(x, ma);
		} else if (!strcmp(op, "is-empty-nonempty") || !strcmp(op, "is-empty-empty")) {
			isl_set *x = isl_set_intersect(set(ctx, DOMAIN), set(ctx, !strcmp(op, "is-empty-empty") ? EMPTY : BAND));
			t0 = now();
			b = isl_set_is_empty(x);
			isl_set_free(x);
		} else if (!strcmp(op, "coalesce")) {
			isl_set *x = set(ctx, PIECES);
			t0 = now();
			r = isl_set_coalesce(x);
		} else {
			fprintf(stderr, "islbench: unknown operation %s\n", op);
			return 2;
		}
		long long t1 = now();
		if (it == 0)
			result = r ? isl_set_to_str(r) : strdup(b < 0 ? "ERROR" : b ? "True" : "False");
		long long t2 = now();
		isl_set_free(r);
		total += (t1 - t0) + (now() - t2);
	}
	printf("%lld %s\n", total, result ? result : "ERROR");
	free(result);
	isl_ctx_free(ctx);
	return 0;
}
