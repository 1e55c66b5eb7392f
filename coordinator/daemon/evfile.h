/* SPDX-License-Identifier: MIT */
/* A finished campaign's events in its results directory: events.jsonl, written and replayed. */
#ifndef IOCURVE_EVFILE_H
#define IOCURVE_EVFILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "events.h"

/* Write DIR/events.jsonl, one JSON object a line (aside, fsync'd, renamed). 0 or -1 with err. */
int evfile_save(const char *dir, const struct event *ev, size_t n, struct error *err);

typedef void (*evfile_send)(void *arg, const struct event *e);
/* Each event of DIR/events.jsonl to send, in order; what cannot be read is logged for id. */
void evfile_replay(const char *dir, uint32_t id, evfile_send send, void *arg);

#endif
