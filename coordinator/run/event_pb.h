/* SPDX-License-Identifier: MIT */
/* Events on the control socket: struct event to and from the protobuf Event message. */
#ifndef IOCURVE_EVENT_PB_H
#define IOCURVE_EVENT_PB_H

#include <stdint.h>

#include "error.h"
#include "events.h"
#include "iocurve.pb-c.h"

/*
 * The one place an event meets its protobuf form: field by field through the
 * table in events.c and the message descriptors, matched by name.
 *
 * event_pb_new: an Event for campaign id, borrowing e's strings (e must
 * outlive it); free it with event_pb_free. event_from_pb: *e owns its strings
 * afterwards (event_clear); -1 with err for an Event without a body.
 */
Iocurve__Event *event_pb_new(const struct event *e, uint32_t id);
void event_pb_free(Iocurve__Event *pb);
int event_from_pb(struct event *e, const Iocurve__Event *pb, struct error *err);
/* Every member of every kind has its protobuf field, of a matching type: else -1 with err. */
int event_pb_check(struct error *err);

#endif
