/* SPDX-License-Identifier: MIT */
/*
 * Fuzz target: what an observe: source answers. The input's first line is a selector
 * (as a campaign's series names one), the rest the page: the text exposition format
 * scanned for it (promtext_scan), a chunked body decoded (httpc_unchunk) and a
 * Prometheus query's JSON answer summed (observer_query_value). Whatever the bytes,
 * the scan must count what it skipped, and what it sums must be finite and within the
 * bound it promises: a value that is not reaches intervals.jsonl and every figure after.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "httpclient.h"
#include "observer.h"
#include "promtext.h"
#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t head = nl != NULL ? (size_t)(nl - (const char *)data) : size;
	char *sel_text = xmalloc(head + 1), *page;
	size_t rest = nl != NULL ? size - head - 1 : 0, len = rest;
	struct promtext_selector sel;
	struct promtext_result r;
	struct error err;
	double v;
	char why[256];

	memcpy(sel_text, data, head);
	sel_text[head] = '\0';
	if (promtext_selector_parse(sel_text, &sel, &err) < 0)
		promtext_selector_parse("node_disk_io_time_seconds_total", &sel, &err);
	page = xmalloc(rest + 1);
	memcpy(page, data + size - rest, rest);
	page[rest] = '\0';
	promtext_scan(page, rest, &sel, &r);
	if (!isfinite(r.value) || fabs(r.value) > PROMTEXT_VALUE_MAX * (double)(r.matched + 1) ||
	    (r.bad_lines > 0) != (r.bad_line > 0) || r.bad_lines > r.lines ||
	    r.matched + r.refused > r.lines) {
		fprintf(stderr, "fuzz-promtext: value %g matched %zu bad %zu/%zu lines %zu\n",
		        r.value, r.matched, r.bad_line, r.bad_lines, r.lines);
		abort();
	}
	if (observer_query_value(page, rest, &v, why, sizeof(why)) && !isfinite(v)) {
		fprintf(stderr, "fuzz-promtext: a query's value %g\n", v);
		abort();
	}
	if (httpc_unchunk(page, &len) && (len > rest || page[len] != '\0')) {
		fprintf(stderr, "fuzz-promtext: unchunked %zu of %zu bytes\n", len, rest);
		abort();
	}
	free(page);
	free(sel_text);
	return 0;
}
