/* SPDX-License-Identifier: MIT */
/* The dashboard's parts shared by its event and key handling (dashboard.c) and its drawing. */
#ifndef IOCURVE_DASHBOARD_VIEW_H
#define IOCURVE_DASHBOARD_VIEW_H

#include <curses.h>
#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "dashboard.h"
#include "dashstate.h"
#include "marks.h"

#define DASHBOARD_CURVE_H    28  /* at most: title, 23 plot rows, axis, ticks, legend */
#define DASHBOARD_CURVE_W    80  /* at most: y labels and a 72-cell plot */
#define DASHBOARD_CURVE_MIN  58  /* the narrowest curve worth putting a table beside */
#define DASHBOARD_SIDE_W     51  /* the fleet and finished tables beside the curve */
#define DASHBOARD_IDLE_READS 64  /* readable stdin that yields no key this often: EOF */
#define DASHBOARD_NOTICE_S   8   /* a notice stays this many seconds on the status line */
#define DASHBOARD_HELD_MAX   200 /* log lines kept for stderr while the dashboard is up */

enum dashboard_pair { DASHBOARD_RED = 1, DASHBOARD_YELLOW, DASHBOARD_CYAN, DASHBOARD_GREEN };

struct dashboard {
	struct event_base *base;
	struct dashboard_cbs cbs;
	void *arg;
	SCREEN *screen;
	char *old_ctype;
	struct event *ev_key, *ev_winch, *ev_tick;
	const char *le, *sep, *arrows; /* "≤", " · ", "←/→" or their ASCII stand-ins */
	int idle_reads;

	struct dashstate st; /* what the events said */

	/* What the user chose. */
	int shown; /* the workload whose curve is drawn; -1: the current one */
	enum dashstate_sort sort;
	bool help, confirm, cancel_sent, dirty;
	/* m: the mark's text being typed (prompt), then the answer (notice, until notice_end) */
	bool prompt;
	char text[MARK_TEXT_MAX + 1];
	size_t text_len;
	char notice[256];
	uint64_t notice_end; /* clock_now_ns */
	long drawn_sec;
	/* The process's log lines while the screen is ours: warnings shown as notices, all
	 * printed to stderr once the terminal is back (over the screen they would be lost). */
	bool logging;
	char *held[DASHBOARD_HELD_MAX];
	unsigned nheld, dropped;
};

/* Whole seconds on the header's clocks: a change means a redraw. */
long dashboard_clock(const struct dashboard *d);
/* Draw the whole screen from d->st and what the user chose. */
void dashboard_draw(struct dashboard *d);

#endif
