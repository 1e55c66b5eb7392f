/* SPDX-License-Identifier: MIT */
/* Campaign events as plain lines, for pipes and CI logs: one per interval and per step. */
#ifndef IOCURVE_VIEW_PLAIN_H
#define IOCURVE_VIEW_PLAIN_H

#include <stdio.h>

/* An events_fn: arg is the FILE * to print to. */
void view_plain(void *arg, const char *line);
/* An events_fn printing each event line as it is (--json): arg is the FILE *. */
void view_json(void *arg, const char *line);

#endif
