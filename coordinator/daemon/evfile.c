/* SPDX-License-Identifier: MIT */
/* A finished campaign's events in its results directory: events.jsonl, written and replayed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event_json.h"
#include "evfile.h"
#include "log.h"
#include "xalloc.h"

int evfile_save(const char *dir, const struct event *ev, size_t n, struct error *err)
{
	char *path = xasprintf("%s/events.jsonl", dir);
	char *tmp = xasprintf("%s/.events.jsonl.tmp", dir);
	FILE *f = fopen(tmp, "w");
	bool ok = f != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		char *line = event_json_encode(&ev[i]);

		ok = fprintf(f, "%s\n", line) > 0;
		free(line);
	}
	ok = f != NULL && fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0 && ok;
	if (f != NULL && fclose(f) != 0)
		ok = false;
	if (ok && rename(tmp, path) < 0)
		ok = false;
	if (!ok) {
		error_set(err, "%s: cannot write: %s", path, strerror(errno));
		unlink(tmp);
	}
	free(path);
	free(tmp);
	return ok ? 0 : -1;
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
