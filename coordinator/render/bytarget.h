/* SPDX-License-Identifier: MIT */
/*
 * The side-by-side table of a campaign over several targets (targets:): a row
 * per test (a workload as written), a column per target, each cell that pair's
 * knee with its band, peak and sustained figure, as a reviewer publishes them.
 */
#ifndef IOCURVE_BYTARGET_H
#define IOCURVE_BYTARGET_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

#include "judged.h"

/* Whether c has the table: two targets or more. */
bool bytarget_shown(const struct campaign *c);
/*
 * The table in markdown (| Test | fast | slow |), headed by a line that says what
 * a cell holds; nothing unless bytarget_shown. judged[i] is workload i's curve.
 */
void bytarget_print(FILE *f, const struct campaign *c, const struct judged_curve *judged);
/*
 * summary.json's by_target from its workloads array (ws, workload i at i): the
 * targets in column order and a row per test whose cells, keyed by target, repeat
 * that pair's figures from ws (null where the test does not run on the target).
 * NULL unless bytarget_shown.
 */
json_t *bytarget_json(const struct campaign *c, json_t *ws);

#endif
