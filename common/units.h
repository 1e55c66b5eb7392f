/* SPDX-License-Identifier: MIT */
/* Parsing and printing sizes, durations and rates as people write them. */
#ifndef IOCURVE_UNITS_H
#define IOCURVE_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/*
 * Sizes: "4096", "8KiB", "64KiB", "256MiB", "1GiB", "1TiB" (binary), also
 * "8K", "8k", "1M", "1m", "1G", "1g" as binary and "8KB", "1MB", "1GB" as decimal.
 * Durations: "10ns", "500us", "200ms", "1s", "1.5s", "2m", "1h"; a bare number is
 * refused (ambiguous). Rates: "20000", "20k", "1.5M" ops/s (k = 1000).
 * Bandwidths: a size per second, "800MiB/s", "1.5GiB/s", "100MB/s", in bytes/s;
 * the byte unit is required ("800/s" would read as ops). Percentages: "50%",
 * "12.5%" or a bare "50"; the caller checks the range.
 * Each returns 0, or -1 with err naming the text and what was expected.
 */
int units_parse_size(const char *s, uint64_t *bytes, struct error *err);
int units_parse_duration(const char *s, uint64_t *ns, struct error *err);
int units_parse_rate(const char *s, double *ops, struct error *err);
int units_parse_bandwidth(const char *s, double *bytes_per_sec, struct error *err);
int units_parse_percent(const char *s, double *pct, struct error *err);

/* "256MiB", "8KiB", "1.5GiB", "512B". */
void units_format_size(uint64_t bytes, char *buf, size_t len);
/* "850ns", "12.3us", "1.25ms", "3.00s". */
void units_format_duration(uint64_t ns, char *buf, size_t len);
/* A duration as a campaign file writes it: "5s", "1500ms" (else as units_format_duration). */
void units_format_plan_duration(uint64_t ns, char *buf, size_t len);
/* A count with thousands separators: "5,000", "46,312". */
void units_format_count(uint64_t n, char *buf, size_t len);

#endif
