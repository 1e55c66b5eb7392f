/* SPDX-License-Identifier: MIT */
/* A trace to replay (replay: {file, format}): fio's iolog read into operations, bounded. */
#ifndef IOCURVE_TRACE_H
#define IOCURVE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Bounds: the file, one line, and the operations (they travel in the agents' Prepares). */
#define TRACE_MAX_FILE (64u << 20)
#define TRACE_MAX_LINE 4096
#define TRACE_MAX_OPS  500000u
#define TRACE_MAX_LEN  (16u << 20) /* an operation's bytes: the agents' largest block */
#define TRACE_MAX_SPAN (24ull * 3600 * 1000000000ull) /* a day of trace */
#define TRACE_MAX_RATE 10000000.0                     /* replay.rate (version 2): ops/s */

/*
 * The operations in the trace's order: each one's time in ns from the first
 * (nondecreasing), its offset and length in bytes (the length rounded up to 512,
 * what O_DIRECT takes) and whether it writes. period_ns is how long one pass
 * lasts: the span from the first to the last operation plus one mean gap, so a
 * trace that loops keeps its rate (n / period).
 */
struct trace {
	char *path;
	uint32_t version; /* the iolog's: 2 or 3 */
	uint32_t n;
	uint64_t *t_ns;
	uint64_t *offset;
	uint32_t *len;
	bool *write;
	uint64_t period_ns;
	uint32_t max_len;
	uint32_t writes;
	/*
	 * The file as read: its bytes and their SHA-256 in hex, so two runs can tell
	 * whether they replayed the same trace (setupdiff.c) whatever its path.
	 */
	uint64_t bytes;
	char sha256[65];
};

/*
 * Read fio's iolog (version 2 or 3, as `fio --write_iolog` writes it). Version 3
 * lines are `TIMESTAMP FILE ACTION [OFFSET LENGTH]` with the timestamp in
 * microseconds from the run's start (what fio 3.33 writes); version 2 lines have no
 * time, so rate (ops/s) must be given and operation i is due at i / rate (0: refused
 * for version 2, unused for version 3). File actions (add, open, close) are taken and
 * every file's offsets go into the workload's files; read and write are replayed;
 * any other action, a malformed number or a time going back is refused as
 * "PATH:LINE: ...". Returns the trace, or NULL with err.
 */
struct trace *trace_load(const char *path, double rate, struct error *err);
void trace_free(struct trace *t);

/* The trace's operations per second at x1: n over one pass. */
double trace_rate(const struct trace *t);

#endif
