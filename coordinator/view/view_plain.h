/* SPDX-License-Identifier: MIT */
/* Campaign events as plain lines, for pipes and CI logs: one per interval and per step. */
#ifndef IOCURVE_VIEW_PLAIN_H
#define IOCURVE_VIEW_PLAIN_H

#include <stdio.h>

#include "events.h"

/* An events_fn: arg is the FILE * to print to. */
void view_plain(void *arg, const struct event *e);
/* An events_fn printing each event as a JSON line (--json, event_json.h): arg is the FILE *. */
void view_json(void *arg, const struct event *e);

#endif
