/* SPDX-License-Identifier: MIT */
/*
 * A step's figures as JSON, as curve-*.json and summary.json write them: each field of
 * the field table (pointfields.h) rounded to the decimals it means, the campaign's
 * percentiles, the kernel's view. Reals are rounded (stepjson_num) so that printed with
 * 15 significant digits a value reads as it is meant: 0.3, not 0.30000000000000004.
 */
#ifndef IOCURVE_STEPJSON_H
#define IOCURVE_STEPJSON_H

#include <jansson.h>
#include <stdint.h>

#include "judged.h"
#include "pointfields.h"

/* v itself, or null (and a fault noted for the file being written) when it is NULL. */
json_t *stepjson_need(json_t *v);
/* v rounded to 1/scale (10: one decimal); null when it is not a number or the scale overflows. */
json_t *stepjson_num(double v, double scale);
/* Nanoseconds as microseconds with one decimal. */
json_t *stepjson_us(double ns);
/* The campaign's percentiles (percentiles:), keyed as the tables head them: "p99.99". */
json_t *stepjson_pcts(const struct step_point *p);
/* A kind's latency at the table percentiles (ns[k] at step_pct k); null: not measured. */
json_t *stepjson_kind_pcts(const struct step_point *p, const uint64_t *ns);
/*
 * One field of a step as curve-*.json writes it (rounded to its decimals; null for no
 * value); NULL leaves it out (a first error when there was none, words not UTF-8).
 */
json_t *stepjson_field(const struct pfield *f, const struct step_point *p,
                       const struct judged_point *jp);
/* A point's kernel view as curve-*.json's "kernel" (null when no device was read). */
json_t *stepjson_kernel(const struct step_point *p);
/* A mix's parts of a step (curve-*.json's "parts"): each its name, share and figures. */
json_t *stepjson_parts(const struct mix *m, const struct step_point *p);

#endif
