/* SPDX-License-Identifier: MIT */
/* Following a campaign in the daemon over the control socket. */
#ifndef IOCURVE_WATCH_H
#define IOCURVE_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/*
 * Stream campaign id's events until its done event (or q on the dashboard):
 * the dashboard on a terminal, plain lines otherwise, JSON lines with json.
 * Returns the campaign's status (0 complete, 1 failed or cancelled), 0 when
 * detached, or -1 with err.
 */
int watch_campaign(const char *path, uint32_t id, bool json, struct error *err);
struct event;
/* The same, each event also handed to on_event(arg, e) (run --require-knee reads the knees). */
int watch_campaign_observed(const char *path, uint32_t id, bool json,
                            void (*on_event)(void *arg, const struct event *e), void *arg,
                            struct error *err);

#endif
