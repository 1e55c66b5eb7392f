/* SPDX-License-Identifier: MIT */
/* IOmeter's and vdbench's words for workload settings, answered with iocurve's keys. */
#ifndef IOCURVE_VOCAB_H
#define IOCURVE_VOCAB_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Where an unknown key of a mapping that holds workload settings is one of
 * IOmeter's (its Access Specification and Test Setup fields: "Transfer Request
 * Size", "# of Outstanding I/Os", ...) or vdbench's (xfersize, rdpct, seekpct,
 * iorate, elapsed, threads, forxfersize, ...), out says what iocurve calls it or
 * where the setting lives, and true. Matched without case, spaces or punctuation
 * ("transfer_request_size" is IOmeter's too); vdbench's words as vdbench spells them.
 */
bool vocab_hint(const char *name, char *out, size_t len);

#endif
