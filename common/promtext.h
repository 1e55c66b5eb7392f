/* SPDX-License-Identifier: MIT */
/*
 * The Prometheus text exposition format (version 0.0.4), read from sources nobody
 * vouches for: an exporter's /metrics polled by `observe:`. One selector
 * (`name` or `name{label="value",...}`, equality only) is matched against every
 * sample of a page; the matching samples' values are summed (the CPUs of
 * node_cpu_seconds_total{mode="idle"}, say), and the page's `# TYPE` line (or a
 * name ending in _total) says whether the series is a counter, which the caller
 * turns into a rate between two polls.
 *
 * The grammar, as Prometheus' own parser takes it: lines end with '\n'; a line
 * starting with '#' is a comment, `# HELP NAME TEXT` or `# TYPE NAME TYPE`;
 * otherwise NAME [{LABEL="VALUE",...[,]}] VALUE [TIMESTAMP], blanks being spaces
 * or tabs, label values with the escapes \\, \" and \n, values Go floats
 * (NaN, +Inf, -Inf, 1e308 ...). Nothing is trusted: a line that does not parse
 * is skipped and the first one is named (its number and why), a line over
 * PROMTEXT_LINE_MAX is skipped likewise, and a matching sample whose value is not
 * finite or whose magnitude is over PROMTEXT_VALUE_MAX is not summed but named.
 */
#ifndef IOCURVE_PROMTEXT_H
#define IOCURVE_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

#define PROMTEXT_NAME_MAX   200   /* a metric's or label's name */
#define PROMTEXT_VALUE_LEN  512   /* a label's value, unescaped */
#define PROMTEXT_LABELS_MAX 16    /* matchers in a selector */
#define PROMTEXT_LINE_MAX   65536 /* a longer line is skipped */
/* A value beyond this magnitude is refused: a rate or mean of it would overflow. */
#define PROMTEXT_VALUE_MAX 1e15

struct promtext_label {
	char name[PROMTEXT_NAME_MAX];
	char value[PROMTEXT_VALUE_LEN];
};

/* What a series asks of a page: a metric name and label values it must carry. */
struct promtext_selector {
	char name[PROMTEXT_NAME_MAX];
	struct promtext_label labels[PROMTEXT_LABELS_MAX];
	size_t nlabels;
};

/*
 * Parse a selector: `name` or `name{label="value", ...}`. 0, or -1 with err saying
 * what is wrong and at which byte.
 */
int promtext_selector_parse(const char *s, struct promtext_selector *sel, struct error *err);

/* What one page said of one selector. */
struct promtext_result {
	size_t matched; /* samples of the selector summed into value */
	double value;   /* their sum (0 when none) */
	bool counter;   /* TYPE counter (histogram, summary) or a name ending in _total */
	size_t lines;   /* lines read */
	/* the first line skipped, from 1 (0: none), and why; and how many in all */
	size_t bad_line;
	size_t bad_lines;
	char bad_why[160];
	/* the first matching sample refused (NaN, Inf, over PROMTEXT_VALUE_MAX), and how many */
	size_t refused;
	char refused_why[320];
	bool over; /* the samples' sum passed PROMTEXT_VALUE_MAX: none taken (matched 0) */
};

/* Read a page (len bytes, any bytes) for sel. Never fails: what it skipped is in *res. */
void promtext_scan(const char *text, size_t len, const struct promtext_selector *sel,
                   struct promtext_result *res);

/*
 * A Go float as the format writes it: decimal or exponent notation, NaN, +Inf,
 * -Inf (Prometheus' own spellings). false when s[0..len) is none.
 */
bool promtext_float(const char *s, size_t len, double *out);

#endif
