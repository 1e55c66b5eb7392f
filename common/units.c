/* SPDX-License-Identifier: MIT */
/* Parsing and printing sizes, durations and rates as people write them. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "units.h"
#include "xalloc.h"

#define UNITS_SIZE_EXPECTED     "expected a number with B, KiB, MiB, GiB, TiB, KB, MB, GB, TB"
#define UNITS_DURATION_EXPECTED "expected a number with ns, us, ms, s, m or h, e.g. 500ms or 1.5s"
#define UNITS_RATE_EXPECTED     "expected ops/s as a number, optionally with k, M or G, e.g. 20k"
#define UNITS_BANDWIDTH_EXPECTED                                                                   \
	"expected a size per second such as 800MiB/s or 1.5GiB/s, in B, KiB, MiB, GiB, TiB, KB, "  \
	"MB, GB or TB"
#define UNITS_PERCENT_EXPECTED "expected a percentage such as 50%% or 12.5%%"

struct units_suffix {
	const char *name;
	uint64_t mult;
};

static const struct units_suffix units_size_suffixes[] = {
    {"", 1},
    {"B", 1},
    {"K", 1ULL << 10},
    {"k", 1ULL << 10},
    {"KiB", 1ULL << 10},
    {"M", 1ULL << 20},
    {"m", 1ULL << 20},
    {"MiB", 1ULL << 20},
    {"G", 1ULL << 30},
    {"g", 1ULL << 30},
    {"GiB", 1ULL << 30},
    {"T", 1ULL << 40},
    {"t", 1ULL << 40},
    {"TiB", 1ULL << 40},
    {"KB", 1000ULL},
    {"kB", 1000ULL},
    {"MB", 1000ULL * 1000},
    {"GB", 1000ULL * 1000 * 1000},
    {"TB", 1000ULL * 1000 * 1000 * 1000},
    {NULL, 0},
};

static const struct units_suffix units_duration_suffixes[] = {
    {"ns", 1},
    {"us", 1000ULL},
    {"\xc2\xb5s", 1000ULL}, /* "µs": what people paste from tool output */
    {"ms", 1000ULL * 1000},
    {"s", 1000ULL * 1000 * 1000},
    {"m", 60ULL * 1000 * 1000 * 1000},
    {"h", 3600ULL * 1000 * 1000 * 1000},
    {NULL, 0},
};

static const struct units_suffix units_rate_suffixes[] = {
    {"", 1},   {"k", 1000ULL}, {"K", 1000ULL}, {"M", 1000ULL * 1000}, {"G", 1000ULL * 1000 * 1000},
    {NULL, 0},
};

/*
 * A decimal number split so that it can be scaled exactly: the value is
 * whole + frac / frac_scale. Exact integer arithmetic matters because
 * "1.1s" must become 1100000000ns, not 1099999999 from a binary fraction.
 */
struct units_number {
	uint64_t whole;
	uint64_t frac;
	uint64_t frac_scale;
	bool frac_lost; /* nonzero digits beyond what frac can hold */
	bool overflow;  /* whole does not fit in 64 bits */
	const char *end;
};

/* Returns 0, 1 when the number is too large, or -1 when there is no number. */
static int units_number_scan(const char *s, struct units_number *n)
{
	const char *p = s;
	bool digits = false;

	memset(n, 0, sizeof(*n));
	n->frac_scale = 1;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		digits = true;
		if (n->whole > (UINT64_MAX - d) / 10)
			n->overflow = true;
		else
			n->whole = n->whole * 10 + d;
	}
	if (*p == '.') {
		p++;
		for (; *p >= '0' && *p <= '9'; p++) {
			digits = true;
			/* 10^18 fits in 64 bits; further digits only matter if nonzero */
			if (n->frac_scale < 1000000000000000000ULL) {
				n->frac = n->frac * 10 + (unsigned)(*p - '0');
				n->frac_scale *= 10;
			} else if (*p != '0') {
				n->frac_lost = true;
			}
		}
	}
	if (!digits)
		return -1;
	n->end = p;
	return n->overflow ? 1 : 0;
}

static const struct units_suffix *units_suffix_find(const struct units_suffix *table, const char *s)
{
	for (; table->name != NULL; table++)
		if (strcmp(table->name, s) == 0)
			return table;
	return NULL;
}

/*
 * Scale a scanned number by mult. Returns 0, 1 on overflow, or 2 when the
 * result is not a whole number of the base unit.
 */
static int units_number_scale(const struct units_number *n, uint64_t mult, uint64_t *out)
{
	unsigned __int128 whole = (unsigned __int128)n->whole * mult;
	unsigned __int128 frac = (unsigned __int128)n->frac * mult;

	if (n->frac_lost || frac % n->frac_scale != 0)
		return 2;
	whole += frac / n->frac_scale;
	if (whole > UINT64_MAX)
		return 1;
	*out = (uint64_t)whole;
	return 0;
}

/*
 * The number of a scanned prefix as a double. The scan proved the prefix is
 * plain decimal digits, so strtod cannot wander into hex, "inf" or exponents;
 * it only does the rounding.
 */
static double units_number_value(const char *s, const struct units_number *n)
{
	char *num = xstrndup(s, (size_t)(n->end - s));
	double v = strtod(num, NULL);

	free(num);
	return v;
}

/* Skip the optional spaces in "8 KiB". */
static const char *units_skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/*
 * The binary unit a suffix in another case most likely meant ("kb", "kib", "Kb",
 * "mib": fio's and most tools' kilo is 1024), or NULL.
 */
static const char *units_size_binary(const char *suffix)
{
	static const char *const names[][4] = {
	    {"k", "kb", "kib", "KiB"},
	    {"m", "mb", "mib", "MiB"},
	    {"g", "gb", "gib", "GiB"},
	    {"t", "tb", "tib", "TiB"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (size_t j = 0; j < 3; j++)
			if (strcasecmp(suffix, names[i][j]) == 0)
				return names[i][3];
	return NULL;
}

int units_parse_size(const char *s, uint64_t *bytes, struct error *err)
{
	const struct units_suffix *suffix;
	struct units_number n;
	int rc;

	if (s[0] == '-') {
		error_set(err, "'%s' is not a size: sizes cannot be negative", s);
		return -1;
	}
	rc = units_number_scan(s, &n);
	if (rc < 0 ||
	    (suffix = units_suffix_find(units_size_suffixes, units_skip_spaces(n.end))) == NULL) {
		const char *binary = rc < 0 ? NULL : units_size_binary(units_skip_spaces(n.end));

		if (binary != NULL)
			error_set(err,
			          "'%s' is not a size; did you mean '%.*s%s'? (KiB is 1024 bytes, "
			          "KB 1000)",
			          s, (int)(n.end - s), s, binary);
		else
			error_set(err, "'%s' is not a size (" UNITS_SIZE_EXPECTED ")", s);
		return -1;
	}
	if (rc == 0)
		rc = units_number_scale(&n, suffix->mult, bytes);
	if (rc == 1) {
		error_set(err, "'%s' is too large for a size (at most 16EiB)", s);
		return -1;
	}
	if (rc == 2) {
		error_set(err, "'%s' is not a whole number of bytes (write it in a smaller unit)",
		          s);
		return -1;
	}
	return 0;
}

int units_parse_duration(const char *s, uint64_t *ns, struct error *err)
{
	const struct units_suffix *suffix;
	struct units_number n;
	const char *unit;
	int rc;

	if (s[0] == '-') {
		error_set(err, "'%s' is not a duration: durations cannot be negative", s);
		return -1;
	}
	rc = units_number_scan(s, &n);
	if (rc < 0) {
		error_set(err, "'%s' is not a duration (" UNITS_DURATION_EXPECTED ")", s);
		return -1;
	}
	unit = units_skip_spaces(n.end);
	if (*unit == '\0') {
		/* "5" could mean seconds or milliseconds; guessing would be worse */
		error_set(err,
		          "'%s' is not a duration: add a unit (ns, us, ms, s, m or h), e.g. %ss", s,
		          s);
		return -1;
	}
	suffix = units_suffix_find(units_duration_suffixes, unit);
	if (suffix == NULL) {
		error_set(err, "'%s' is not a duration (" UNITS_DURATION_EXPECTED ")", s);
		return -1;
	}
	if (rc == 0)
		rc = units_number_scale(&n, suffix->mult, ns);
	if (rc == 1) {
		error_set(err, "'%s' is too long for a duration (at most about 584 years)", s);
		return -1;
	}
	if (rc == 2) {
		error_set(err, "'%s' is finer than a nanosecond (write it in a smaller unit)", s);
		return -1;
	}
	return 0;
}

int units_parse_rate(const char *s, double *ops, struct error *err)
{
	const struct units_suffix *suffix;
	struct units_number n;
	double v;
	int rc;

	if (s[0] == '-') {
		error_set(err, "'%s' is not a rate: rates cannot be negative", s);
		return -1;
	}
	rc = units_number_scan(s, &n);
	if (rc < 0 ||
	    (suffix = units_suffix_find(units_rate_suffixes, units_skip_spaces(n.end))) == NULL) {
		error_set(err, "'%s' is not a rate (" UNITS_RATE_EXPECTED ")", s);
		return -1;
	}
	v = units_number_value(s, &n) * (double)suffix->mult;
	if (rc == 1 || !isfinite(v) || v > 1e15) {
		error_set(err, "'%s' is too large for a rate (at most 1e15 ops/s)", s);
		return -1;
	}
	*ops = v;
	return 0;
}

int units_parse_bandwidth(const char *s, double *bytes_per_sec, struct error *err)
{
	const struct units_suffix *suffix;
	struct units_number n;
	const char *unit;
	char *name;
	size_t len;
	double v;
	int rc;

	if (s[0] == '-') {
		error_set(err, "'%s' is not a bandwidth: bandwidths cannot be negative", s);
		return -1;
	}
	rc = units_number_scan(s, &n);
	unit = rc < 0 ? s : units_skip_spaces(n.end);
	len = strlen(unit);
	if (rc < 0 || len < 3 || strcmp(unit + len - 2, "/s") != 0) {
		error_set(err, "'%s' is not a bandwidth (" UNITS_BANDWIDTH_EXPECTED ")", s);
		return -1;
	}
	/* the size units without the bare number: "800/s" is a rate, not bytes */
	name = xstrndup(unit, len - 2);
	suffix = units_suffix_find(units_size_suffixes + 1, name);
	free(name);
	if (suffix == NULL) {
		error_set(err, "'%s' is not a bandwidth (" UNITS_BANDWIDTH_EXPECTED ")", s);
		return -1;
	}
	v = units_number_value(s, &n) * (double)suffix->mult;
	if (rc == 1 || !isfinite(v) || v > 0x1p60) {
		error_set(err, "'%s' is too large for a bandwidth (at most 1EiB/s)", s);
		return -1;
	}
	*bytes_per_sec = v;
	return 0;
}

int units_parse_percent(const char *s, double *pct, struct error *err)
{
	struct units_number n;
	const char *rest;
	int rc;

	if (s[0] == '-') {
		error_set(err, "'%s' is not a percentage: percentages cannot be negative", s);
		return -1;
	}
	rc = units_number_scan(s, &n);
	rest = rc < 0 ? s : units_skip_spaces(n.end);
	if (rc < 0 || (*rest != '\0' && strcmp(rest, "%") != 0)) {
		error_set(err, "'%s' is not a percentage (" UNITS_PERCENT_EXPECTED ")", s);
		return -1;
	}
	if (rc == 1) {
		error_set(err, "'%s' is too large for a percentage", s);
		return -1;
	}
	*pct = units_number_value(s, &n);
	return 0;
}

/* Drop the zeros after a decimal point so "1.50" reads "1.5" and "2.00" reads "2". */
static void units_trim_zeros(char *num)
{
	char *dot = strchr(num, '.');
	char *end;

	if (dot == NULL)
		return;
	end = num + strlen(num);
	while (end > dot + 1 && end[-1] == '0')
		*--end = '\0';
	if (end == dot + 1)
		*dot = '\0';
}

void units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned i = 0;
	char num[32];
	double v;

	if (len == 0)
		return;
	while (i + 1 < sizeof(names) / sizeof(names[0]) && bytes >= (1ULL << (10 * (i + 1))))
		i++;
	if (bytes % (1ULL << (10 * i)) == 0) {
		snprintf(buf, len, "%llu%s", (unsigned long long)(bytes >> (10 * i)), names[i]);
		return;
	}
	v = (double)bytes / (double)(1ULL << (10 * i));
	snprintf(num, sizeof(num), "%.2f", v);
	units_trim_zeros(num);
	snprintf(buf, len, "%s%s", num, names[i]);
}

/* Three significant digits: "1.25", "12.3", "123". */
static void units_format_3sig(double v, const char *unit, char *buf, size_t len)
{
	if (v < 9.995)
		snprintf(buf, len, "%.2f%s", v, unit);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f%s", v, unit);
	else
		snprintf(buf, len, "%.0f%s", v, unit);
}

void units_format_duration(uint64_t ns, char *buf, size_t len)
{
	if (len == 0)
		return;
	/* thresholds sit where rounding would print "1000" of the smaller unit */
	if (ns < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)ns);
	else if (ns < 999500)
		units_format_3sig((double)ns / 1e3, "us", buf, len);
	else if (ns < 999500000)
		units_format_3sig((double)ns / 1e6, "ms", buf, len);
	else
		units_format_3sig((double)ns / 1e9, "s", buf, len);
}

void units_format_count(uint64_t n, char *buf, size_t len)
{
	char raw[24];
	size_t out = 0, ndig;

	if (len == 0)
		return;
	snprintf(raw, sizeof(raw), "%llu", (unsigned long long)n);
	ndig = strlen(raw);
	for (size_t i = 0; i < ndig && out + 2 < len; i++) {
		if (i > 0 && (ndig - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = raw[i];
	}
	buf[out] = '\0';
}

void units_format_plan_duration(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000000ull == 0)
		snprintf(buf, len, "%llus", (unsigned long long)(ns / 1000000000ull));
	else if (ns % 1000000ull == 0)
		snprintf(buf, len, "%llums", (unsigned long long)(ns / 1000000ull));
	else
		units_format_duration(ns, buf, len);
}
