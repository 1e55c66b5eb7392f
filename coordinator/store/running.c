/* SPDX-License-Identifier: MIT */
/* The `running` mark of a daemon's campaign in its results directory. */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "safefile.h"
#include "log.h"
#include "running.h"
#include "saferead.h"
#include "text.h"
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
	return safefile_write(dir, RUNNING_FILE, running_write,
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
	int rc = safefile_write(root, name, running_end_write, &(struct running_end){state, reason},
	                        err);

	free(path);
	return rc;
}

/* ROOT/.BASENAME.ended, when there is one: its state and reason. 0 when read. */
static int running_ended_read(const char *path, char *state, size_t slen, char *reason, size_t rlen)
{
	struct error err;
	/* no link, no FIFO: a daemon starting must not hang on what is planted here */
	FILE *f = saferead_fopen(AT_FDCWD, NULL, path, 0, &err);
	int rc = -1;

	if (f == NULL)
		return -1;
	if (fgets(state, (int)slen, f) != NULL) {
		char raw[1024];

		state[strcspn(state, "\n")] = '\0';
		if (fgets(raw, sizeof(raw), f) == NULL)
			raw[0] = '\0';
		raw[strcspn(raw, "\n")] = '\0';
		/* It reaches `iocurve status` and the log: no escape sequence goes with it. */
		text_clean(raw, reason, rlen, false);
		rc = strcmp(state, "failed") == 0 || strcmp(state, "cancelled") == 0 ||
		             strcmp(state, "complete") == 0
		         ? 0
		         : -1;
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

/*
 * One mark: "ID\nNAME\nSTARTED\n". 0 when it reads as one; 1 when it exists but is
 * not one a daemon writes (why says what is wrong); -1 when there is none.
 */
static int running_read(const char *path, uint32_t *id, char *name, size_t nlen, char *started,
                        size_t slen, char *why, size_t wlen)
{
	struct error err;
	FILE *f = saferead_fopen(AT_FDCWD, NULL, path, 0, &err);
	char line[256], raw[256];
	unsigned long v;
	char *end;
	int rc = 1;

	if (f == NULL && errno == ENOENT)
		return -1;
	if (f == NULL) {
		/* a link, a FIFO, a device: said, never read (a FIFO would hang the scan) */
		size_t at = strncmp(err.msg, path, strlen(path)) == 0 ? strlen(path) + 2 : 0;

		snprintf(why, wlen, "%.*s", (int)(wlen - 1),
		         at < strlen(err.msg) ? err.msg + at : err.msg);
		return 1;
	}
	snprintf(why, wlen, "not \"ID\\nNAME\\nSTARTED\\n\"");
	if (fgets(line, sizeof(line), f) != NULL) {
		errno = 0;
		v = strtoul(line, &end, 10);
		if (end == line || *end != '\n' || line[0] == '-')
			goto out;
		if (errno != 0 || v == 0 || v > RUNNING_ID_MAX) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(why, wlen, "id %.20s is outside [1, %u]", line, RUNNING_ID_MAX);
			goto out;
		}
		if (fgets(name, (int)nlen, f) == NULL || fgets(raw, sizeof(raw), f) == NULL)
			goto out;
		name[strcspn(name, "\n")] = '\0';
		if (name[0] == '\0' || !text_name_ok(name)) {
			snprintf(why, wlen, "its name is not a campaign name ([A-Za-z0-9._-])");
			goto out;
		}
		raw[strcspn(raw, "\n")] = '\0';
		text_clean(raw, started, slen, false);
		*id = (uint32_t)v;
		rc = 0;
	}
out:
	fclose(f);
	return rc;
}

void running_scan(const char *root, running_found found, void *arg)
{
	struct dirent **ents = NULL;
	int n = scandir(root, &ents, NULL, alphasort);
	char name[128], started[64], state[32], reason[1024], why[128];
	uint32_t id;

	for (int i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%s", root, ents[i]->d_name);
		char *path = xasprintf("%s/%s", dir, RUNNING_FILE);

		int rc = ents[i]->d_name[0] != '.'
		             ? running_read(path, &id, name, sizeof(name), started, sizeof(started),
		                            why, sizeof(why))
		             : -1;

		if (rc == 1) {
			char shown[512];

			log_warn("%s: not a mark this daemon wrote (%s): ignored",
			         text_clean(path, shown, sizeof(shown), false), why);
		} else if (rc == 0) {
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
