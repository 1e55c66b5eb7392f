/* SPDX-License-Identifier: MIT */
/* Read and write apart: a mixed workload's figures per operation kind at one step. */
#ifndef IOCURVE_KINDS_H
#define IOCURVE_KINDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"

enum kinds_kind { KINDS_READ, KINDS_WRITE };
#define KINDS_N 2

/*
 * One kind's figures at a step. ops_s is always known (every agent counts its
 * reads); the rest only when every agent measured the kinds apart (known).
 */
struct kinds_fig {
	bool known;
	double ops_s;
	double mib_s;
	double mean_ns;
	uint64_t p99_ns;
};

/* "read" or "write". */
const char *kinds_name(enum kinds_kind k);
/* Point p's figures of kind k (p->mixed should be true; a pure workload's are zeros). */
struct kinds_fig kinds_of(const struct step_point *p, enum kinds_kind k);
/*
 * The figures in words: "699 ops/s, 2.58 MiB/s, mean 1.50ms, p99 4.12ms", or
 * "699 ops/s (MiB/s and latency not measured: an agent without read and write apart)".
 */
void kinds_text(const struct kinds_fig *f, char *buf, size_t len);

#endif
