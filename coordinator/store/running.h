/* SPDX-License-Identifier: MIT */
/*
 * A daemon's mark on the results directories of the campaigns it runs: a
 * `running` file written at the start and removed at the end, however the
 * campaign ended. One still there when a daemon starts names a campaign whose
 * daemon was killed: interrupted, to be resumed (`iocurve resume ID`), unless
 * the daemon recorded its end beside the directory (running_ended) because the
 * directory had turned unwritable.
 */
#ifndef IOCURVE_RUNNING_H
#define IOCURVE_RUNNING_H

#include <stdint.h>

#include "error.h"

#define RUNNING_FILE "running"
/*
 * The largest campaign id a mark may carry: a daemon numbers on from the largest it
 * finds, and one planted at 4294967295 wrapped the next id to 0.
 */
#define RUNNING_ID_MAX (1u << 24)

/* Write DIR/running: the campaign's id, name and start, one a line (aside, then renamed). */
int running_mark(const char *dir, uint32_t id, const char *name, const char *started,
                 struct error *err);
/* Remove DIR/running (the campaign ended); -1 with err (path, errno) when it stays. */
int running_clear(const char *dir, struct error *err);

/*
 * DIR/running stays (DIR turned unwritable): record how the campaign ended
 * beside it, in ROOT/.BASENAME.ended (state, then reason, one a line), so a
 * restarted daemon lists it so, never as interrupted.
 */
#define RUNNING_ENDED_SUFFIX ".ended"
int running_ended(const char *root, const char *dir, const char *state, const char *reason,
                  struct error *err);
/* Remove DIR/running and, once it is gone, ROOT's record of the end (running_ended). */
void running_forget(const char *root, const char *dir);

/* ended: the state running_ended recorded (reason its reason), NULL when none. */
typedef void (*running_found)(void *arg, const char *dir, uint32_t id, const char *name,
                              const char *started, const char *ended, const char *reason);
/*
 * Call found for every directory of root that holds a readable mark, in name order.
 * A mark is input like any other: one whose id is not in [1, RUNNING_ID_MAX] or whose
 * name is not a campaign name is skipped with a warning naming its path; its start
 * and the recorded end's reason are passed with control characters escaped, and a
 * recorded end other than failed, cancelled or complete is not one.
 */
void running_scan(const char *root, running_found found, void *arg);

#endif
