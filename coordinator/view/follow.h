/* SPDX-License-Identifier: MIT */
/* Showing one campaign's events as they come, for `run` in-process and `watch` alike. */
#ifndef IOCURVE_FOLLOW_H
#define IOCURVE_FOLLOW_H

#include <stdbool.h>

#include <event2/event.h>

#include "dashboard.h"
#include "events.h"

struct follow;

/*
 * The dashboard (cbs: what its keys do) when stdin and stdout are a terminal and
 * json is false; else JSON lines (json) or plain lines on stdout.
 */
struct follow *follow_new(struct event_base *base, bool json, const struct dashboard_cbs *cbs,
                          void *arg);
/* Show e: an events_fn whose arg is the follow. */
void follow_event(void *arg, const struct event *e);
/* A line for the user: on the dashboard's status line, else on stderr. */
void follow_notice(struct follow *f, const char *msg);
/* Whether the dashboard shows the campaign (false for NULL). */
bool follow_dashboard(const struct follow *f);
/*
 * Give the terminal back; the done event's end report, which plain lines print
 * with it, is printed now when the dashboard showed it.
 */
void follow_free(struct follow *f);

#endif
