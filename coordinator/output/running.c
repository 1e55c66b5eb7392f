/* SPDX-License-Identifier: MIT */
/* The `running` mark of a daemon's campaign in its results directory. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "derive.h"
#include "running.h"
#include "xalloc.h"

struct running_mark {
	uint32_t id;
	const char *name, *started;
};

static void running_write(FILE *f, const void *arg)
{
	const struct running_mark *m = arg;

	fprintf(f, "%u\n%s\n%s\n", m->id, m->name, m->started);
}

int running_mark(const char *dir, uint32_t id, const char *name, const char *started,
                 struct error *err)
{
	return derive_file(dir, RUNNING_FILE, running_write,
	                   &(struct running_mark){id, name, started}, err);
}

int running_clear(const char *dir, struct error *err)
{
	char *path = xasprintf("%s/%s", dir, RUNNING_FILE);
	int rc = unlink(path) == 0 || errno == ENOENT ? 0 : -1;

	if (rc < 0)
		error_set(err, "%s: cannot remove: %s", path, strerror(errno));
	free(path);
	return rc;
}

/* ROOT/.BASENAME.ended: how the campaign of ROOT/BASENAME ended, malloc'd. */
static char *running_ended_path(const char *root, const char *dir)
{
	const char *base = strrchr(dir, '/');

	return xasprintf("%s/.%s%s", root, base != NULL ? base + 1 : dir, RUNNING_ENDED_SUFFIX);
}

struct running_end {
	const char *state, *reason;
};

static void running_end_write(FILE *f, const void *arg)
{
	const struct running_end *e = arg;

	/* One line each: a reason's newlines would read as the end of the record. */
	fprintf(f, "%s\n", e->state);
	for (const char *p = e->reason; *p != '\0'; p++)
		fputc(*p == '\n' ? ' ' : *p, f);
	fputc('\n', f);
}

int running_ended(const char *root, const char *dir, const char *state, const char *reason,
                  struct error *err)
{
	char *path = running_ended_path(root, dir);
	const char *name = strrchr(path, '/') + 1;
	int rc =
	    derive_file(root, name, running_end_write, &(struct running_end){state, reason}, err);

	free(path);
	return rc;
}

/* ROOT/.BASENAME.ended, when there is one: its state and reason. 0 when read. */
static int running_ended_read(const char *path, char *state, size_t slen, char *reason, size_t rlen)
{
	FILE *f = fopen(path, "re");
	int rc = -1;

	if (f == NULL)
		return -1;
	if (fgets(state, (int)slen, f) != NULL) {
		state[strcspn(state, "\n")] = '\0';
		if (fgets(reason, (int)rlen, f) == NULL)
			reason[0] = '\0';
		reason[strcspn(reason, "\n")] = '\0';
		rc = state[0] != '\0' ? 0 : -1;
	}
	fclose(f);
	return rc;
}

void running_forget(const char *root, const char *dir)
{
	char *path = running_ended_path(root, dir);
	struct error err;

	if (running_clear(dir, &err) == 0)
		unlink(path);
	free(path);
}

/* One mark: "ID\nNAME\nSTARTED\n". Returns 0 when it reads as one. */
static int running_read(const char *path, uint32_t *id, char *name, size_t nlen, char *started,
                        size_t slen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned long v;
	char *end;
	int rc = -1;

	if (f == NULL)
		return -1;
	if (fgets(line, sizeof(line), f) != NULL) {
		v = strtoul(line, &end, 10);
		if (end != line && *end == '\n' && v > 0 && v <= UINT32_MAX &&
		    fgets(name, (int)nlen, f) != NULL && fgets(started, (int)slen, f) != NULL) {
			*id = (uint32_t)v;
			name[strcspn(name, "\n")] = '\0';
			started[strcspn(started, "\n")] = '\0';
			rc = 0;
		}
	}
	fclose(f);
	return rc;
}

void running_scan(const char *root, running_found found, void *arg)
{
	struct dirent **ents = NULL;
	int n = scandir(root, &ents, NULL, alphasort);
	char name[128], started[64], state[32], reason[1024];
	uint32_t id;

	for (int i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%s", root, ents[i]->d_name);
		char *path = xasprintf("%s/%s", dir, RUNNING_FILE);

		if (ents[i]->d_name[0] != '.' &&
		    running_read(path, &id, name, sizeof(name), started, sizeof(started)) == 0) {
			char *ended = running_ended_path(root, dir);
			bool known = running_ended_read(ended, state, sizeof(state), reason,
			                                sizeof(reason)) == 0;

			found(arg, dir, id, name, started, known ? state : NULL,
			      known ? reason : NULL);
			free(ended);
		}
		free(path);
		free(dir);
		free(ents[i]);
	}
	free(ents);
}
