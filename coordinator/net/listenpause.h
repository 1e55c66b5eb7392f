/* SPDX-License-Identifier: MIT */
/* A listener that pauses when accept fails (out of descriptors) instead of spinning. */
#ifndef IOCURVE_LISTENPAUSE_H
#define IOCURVE_LISTENPAUSE_H

#include <event2/event.h>
#include <event2/listener.h>

struct listenpause;

/*
 * From now on, when accept on l fails (EMFILE, ENFILE, ENOBUFS...), l is disabled
 * for pause_ms and enabled again; the pending connection stays in the backlog, so
 * retrying at once would spin. One log line per 10 s names what and the error.
 */
struct listenpause *listenpause_new(struct event_base *base, struct evconnlistener *l,
                                    const char *what, unsigned pause_ms);
void listenpause_free(struct listenpause *lp);
/*
 * Accept nothing more in this turn of the loop: a connection dropped to make room
 * gives its descriptor back only at the next turn (libevent closes it then), so a
 * burst of accepts, each dropping one, would pile descriptors up to the limit.
 */
void listenpause_next_turn(struct listenpause *lp);
/* accept errors seen so far. */
unsigned long long listenpause_errors(const struct listenpause *lp);

#endif
