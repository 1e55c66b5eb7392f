/* SPDX-License-Identifier: MIT */
/* The live terminal dashboard (ncurses) of a running campaign, fed by its events. */
#ifndef IOCURVE_DASHBOARD_H
#define IOCURVE_DASHBOARD_H

#include <stdbool.h>

#include <event2/event.h>

#include "events.h"

struct dashboard;

struct dashboard_cbs {
	/* q: leave the dashboard; the campaign goes on (in the daemon). NULL: q is not offered. */
	void (*on_detach)(void *arg);
	/* c, then y to confirm: cancel the campaign. */
	void (*on_cancel)(void *arg);
	/*
	 * m, the text, Enter: stamp a mark on the timeline (marks.h; the text checked
	 * already). The answer comes back through dashboard_notice. NULL: m is not offered.
	 */
	void (*on_mark)(void *arg, const char *text);
};

/*
 * Take over the terminal (stdin keys through the event loop, SIGWINCH for
 * resize) and draw from the events given to dashboard_event (events.h). Redraws at most a few times
 * a second: never slows the campaign. NULL when the terminal cannot be set up.
 */
struct dashboard *dashboard_new(struct event_base *base, const struct dashboard_cbs *cbs,
                                void *arg);
void dashboard_event(struct dashboard *d, const struct event *e);
/* A line for the user on the status line for a few seconds (a mark's answer). */
void dashboard_notice(struct dashboard *d, const char *msg);
/* Restore the terminal. */
void dashboard_free(struct dashboard *d);

#endif
