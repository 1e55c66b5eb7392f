/* SPDX-License-Identifier: MIT */
/* Events as JSON objects, one a line: `iocurve run --json`, JSON watchers, event files. */
#ifndef IOCURVE_EVENT_JSON_H
#define IOCURVE_EVENT_JSON_H

#include "error.h"
#include "events.h"

/*
 * A flat object, "event" (the kind's name) first, then the kind's members in
 * table order (events.c): {"event":"done","status":0,"message":"...","results":"..."}.
 * Enums are their words ("ready", "MiB/s", "interpolated"). Returns a string to free.
 */
char *event_json_encode(const struct event *e);
/*
 * One object back into *e, which then owns its strings (event_clear). Members
 * missing are 0 (""), unknown ones ignored; -1 with err when text is not an
 * event or a member has the wrong type.
 */
int event_json_decode(struct event *e, const char *text, struct error *err);

#endif
