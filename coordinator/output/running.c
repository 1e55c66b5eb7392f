/* SPDX-License-Identifier: MIT */
/* The `running` mark of a daemon's campaign in its results directory. */
#include <dirent.h>
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

void running_clear(const char *dir)
{
	char *path = xasprintf("%s/%s", dir, RUNNING_FILE);

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
	char name[128], started[64];
	uint32_t id;

	for (int i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%s", root, ents[i]->d_name);
		char *path = xasprintf("%s/%s", dir, RUNNING_FILE);

		if (ents[i]->d_name[0] != '.' &&
		    running_read(path, &id, name, sizeof(name), started, sizeof(started)) == 0)
			found(arg, dir, id, name, started);
		free(path);
		free(dir);
		free(ents[i]);
	}
	free(ents);
}
