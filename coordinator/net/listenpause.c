/* SPDX-License-Identifier: MIT */
/* A listener that pauses when accept fails (out of descriptors) instead of spinning. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "listenpause.h"
#include "log.h"
#include "xalloc.h"

#define LISTENPAUSE_LOG_NS 10000000000ull

struct listenpause {
	struct evconnlistener *l;
	struct event *resume_ev;
	char what[64];
	unsigned pause_ms;
	unsigned long long errors;
	uint64_t logged_ns;
	struct listenpause *next;
};

/* libevent hands the error callback the accept callback's argument, not ours: look l up. */
static struct listenpause *listenpause_all;

static void listenpause_resume_cb(evutil_socket_t fd, short what, void *arg)
{
	evconnlistener_enable(((struct listenpause *)arg)->l);
}

static void listenpause_error_cb(struct evconnlistener *l, void *arg)
{
	struct listenpause *lp = listenpause_all;
	struct timeval tv;
	int e = EVUTIL_SOCKET_ERROR();
	uint64_t now = clock_now_ns();

	while (lp != NULL && lp->l != l)
		lp = lp->next;
	if (lp == NULL)
		return;
	tv = (struct timeval){lp->pause_ms / 1000, (lp->pause_ms % 1000) * 1000};
	lp->errors++;
	if (lp->logged_ns == 0 || now - lp->logged_ns >= LISTENPAUSE_LOG_NS) {
		log_warn("%s: accept: %s; pausing %u ms (%llu such errors)", lp->what, strerror(e),
		         lp->pause_ms, lp->errors);
		lp->logged_ns = now;
	}
	evconnlistener_disable(l);
	evtimer_add(lp->resume_ev, &tv);
}

struct listenpause *listenpause_new(struct event_base *base, struct evconnlistener *l,
                                    const char *what, unsigned pause_ms)
{
	struct listenpause *lp = xcalloc(1, sizeof(*lp));

	lp->l = l;
	lp->pause_ms = pause_ms;
	snprintf(lp->what, sizeof(lp->what), "%s", what);
	lp->resume_ev = evtimer_new(base, listenpause_resume_cb, lp);
	evconnlistener_set_error_cb(l, listenpause_error_cb);
	lp->next = listenpause_all;
	listenpause_all = lp;
	return lp;
}

void listenpause_free(struct listenpause *lp)
{
	if (lp == NULL)
		return;
	for (struct listenpause **pp = &listenpause_all; *pp != NULL; pp = &(*pp)->next)
		if (*pp == lp) {
			*pp = lp->next;
			break;
		}
	event_free(lp->resume_ev);
	free(lp);
}

void listenpause_next_turn(struct listenpause *lp)
{
	struct timeval now = {0, 0};

	evconnlistener_disable(lp->l);
	evtimer_add(lp->resume_ev, &now);
}

unsigned long long listenpause_errors(const struct listenpause *lp)
{
	return lp->errors;
}
