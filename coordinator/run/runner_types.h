/* SPDX-License-Identifier: MIT */
/* What the runner's public face and its insides share: its handle, end status, callback. */
#ifndef IOCURVE_RUNNER_TYPES_H
#define IOCURVE_RUNNER_TYPES_H

struct runner;

/*
 * The end status of a campaign whose every step completed but that lost agents on
 * the way (on_agent_loss: continue): `run` and `watch` exit with it unless
 * --accept-degraded. 0: complete; 1: failed or cancelled.
 */
#define RUNNER_DEGRADED 3

/* Called once when the campaign ends; status 0 when every step completed (RUNNER_DEGRADED). */
typedef void (*runner_done_fn)(void *arg, int status);

#endif
