/* SPDX-License-Identifier: MIT */
/* A finished campaign's events in its results directory: events.jsonl, written and replayed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safefile.h"
#include "event_json.h"
#include "evfile.h"
#include "log.h"
#include "xalloc.h"

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
	FILE *f = fopen(path, "r");
	size_t cap = 0;
	struct event e;
	struct error err;

	if (f == NULL)
		log_warn("campaign %u: %s: %s", id, path, strerror(errno));
	while (f != NULL && getline(&line, &cap, f) > 0) {
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
