/* SPDX-License-Identifier: MIT */
/* The agent's own event-loop stalls, from the lateness of a periodic tick. */
#include <stdlib.h>

#include "clock.h"
#include "stall.h"
#include "xalloc.h"

struct stall {
	struct event *ev;
	uint64_t tick_ns;     /* the tick last ran */
	uint64_t longest_ns;  /* the longest recent stall... */
	uint64_t longest_end; /* ...and when it ended */
};

/* How late a tick due STALL_TICK_MS after `last` is at `now`. */
static uint64_t stall_late(uint64_t last, uint64_t now)
{
	uint64_t due = last + STALL_TICK_MS * NSEC_PER_MSEC;

	return now > due ? now - due : 0;
}

static void stall_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct stall *st = arg;
	uint64_t now = clock_now_ns(), late = stall_late(st->tick_ns, now);

	/* Keep the longest; one older than a minute gives way to any newer one. */
	if (late > STALL_TICK_MS * NSEC_PER_MSEC &&
	    (late >= st->longest_ns || now - st->longest_end > 60 * NSEC_PER_SEC)) {
		st->longest_ns = late;
		st->longest_end = now;
	}
	st->tick_ns = now;
}

struct stall *stall_new(struct event_base *base)
{
	struct stall *st = xcalloc(1, sizeof(*st));

	st->ev = event_new(base, -1, EV_PERSIST, stall_tick_cb, st);
	st->tick_ns = clock_now_ns();
	event_add(st->ev, &(struct timeval){0, STALL_TICK_MS * 1000});
	return st;
}

uint64_t stall_recent(const struct stall *st, uint64_t now, uint64_t within_ns)
{
	uint64_t late = stall_late(st->tick_ns, now), best = 0;

	if (late > STALL_TICK_MS * NSEC_PER_MSEC)
		best = late;
	if (st->longest_ns > best && now - st->longest_end <= within_ns)
		best = st->longest_ns;
	return best;
}

void stall_free(struct stall *st)
{
	if (st == NULL)
		return;
	event_free(st->ev);
	free(st);
}
