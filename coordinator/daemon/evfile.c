/* SPDX-License-Identifier: MIT */
/* A finished campaign's events in its results directory: events.jsonl, written and replayed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safefile.h"
#include "event_json.h"
#include "evfile.h"
#include "log.h"
#include "saferead.h"
#include "xalloc.h"

/* The longest line replayed: an event is a few KB; more is no line the daemon wrote. */
#define EVFILE_LINE_MAX (1u << 20)

struct evfile_events {
	const struct event *ev;
	size_t n;
};

static void evfile_write(FILE *f, const void *arg)
{
	const struct evfile_events *x = arg;

	for (size_t i = 0; i < x->n; i++) {
		char *line = event_json_encode(&x->ev[i]);

		fprintf(f, "%s\n", line);
		free(line);
	}
}

int evfile_save(const char *dir, const struct event *ev, size_t n, struct error *err)
{
	return safefile_write(dir, "events.jsonl", evfile_write, &(struct evfile_events){ev, n},
	                      err);
}

void evfile_replay(const char *dir, uint32_t id, evfile_send send, void *arg)
{
	char *path = xasprintf("%s/events.jsonl", dir), *line = NULL;
	struct error err;
	/* A regular file, no link, lines bounded: nothing planted there hangs the daemon. */
	FILE *f = saferead_fopen(AT_FDCWD, NULL, path, 0, &err);
	size_t cap = 0, lineno = 0;
	ssize_t n;
	struct event e;

	if (f == NULL)
		log_warn("campaign %u: %s", id, err.msg);
	while (f != NULL && (n = saferead_line(f, &line, &cap, EVFILE_LINE_MAX)) != 0) {
		lineno++;
		if (n < 0) {
			log_warn("campaign %u: %s:%zu: %s", id, path, lineno,
			         n == SAFEREAD_TOO_LONG ? "line too long" : strerror(errno));
			break;
		}
		if (event_json_decode(&e, line, &err) < 0) {
			log_warn("campaign %u: %s: %s", id, path, err.msg);
			break;
		}
		send(arg, &e);
		event_clear(&e);
	}
	if (f != NULL)
		fclose(f);
	free(line);
	free(path);
}
