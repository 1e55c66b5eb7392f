/* SPDX-License-Identifier: MIT */
/*
 * A daemon's mark on the results directories of the campaigns it runs: a
 * `running` file written at the start and removed at the end, however the
 * campaign ended. One still there when a daemon starts names a campaign whose
 * daemon was killed: interrupted, to be resumed (`iocurve resume ID`).
 */
#ifndef IOCURVE_RUNNING_H
#define IOCURVE_RUNNING_H

#include <stdint.h>

#include "error.h"

#define RUNNING_FILE "running"

/* Write DIR/running: the campaign's id, name and start, one a line (aside, then renamed). */
int running_mark(const char *dir, uint32_t id, const char *name, const char *started,
                 struct error *err);
/* Remove DIR/running (the campaign ended). */
void running_clear(const char *dir);

typedef void (*running_found)(void *arg, const char *dir, uint32_t id, const char *name,
                              const char *started);
/* Call found for every directory of root that holds a readable mark, in name order. */
void running_scan(const char *root, running_found found, void *arg);

#endif
