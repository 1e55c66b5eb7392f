/* SPDX-License-Identifier: MIT */
/* What a path lives on: its mount's source, filesystem type and options, for the report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mounts.h"

/* mountinfo escapes space, tab, newline and backslash as \ooo: undo it in place. */
static void mounts_unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Whether mount point mp holds path: equal, or a prefix ending at a '/'. */
static size_t mounts_holds(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return 1;
	if (strncmp(mp, path, n) == 0 && (path[n] == '\0' || path[n] == '/'))
		return n;
	return 0;
}

int mounts_describe(const char *mountinfo, const char *path, char *buf, size_t len)
{
	char *copy = strdup(mountinfo), *save = NULL;
	size_t best = 0;

	buf[0] = '\0';
	if (copy == NULL)
		return -1;
	/* id parent maj:min root mountpoint options [optional...] - fstype source superoptions */
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f[6], *sep = strstr(line, " - "), *tail, *fstype, *source, *tsave = NULL;
		char *lsave = NULL;
		size_t k = 0, held;

		if (sep == NULL)
			continue;
		*sep = '\0';
		tail = sep + 3;
		for (char *t = strtok_r(line, " ", &lsave); t && k < 6;
		     t = strtok_r(NULL, " ", &lsave))
			f[k++] = t;
		fstype = strtok_r(tail, " ", &tsave);
		source = fstype ? strtok_r(NULL, " ", &tsave) : NULL;
		if (k < 6 || source == NULL)
			continue;
		mounts_unescape(f[4]);
		mounts_unescape(source);
		held = mounts_holds(f[4], path);
		/* a later mount on the same point hides an earlier one: >= keeps the last */
		if (held > 0 && held >= best) {
			best = held;
			snprintf(buf, len, "%s %s %s", source, fstype, f[5]);
		}
	}
	free(copy);
	return best > 0 ? 0 : -1;
}

int mounts_of(const char *path, char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc;

	buf[0] = '\0';
	if (f == NULL)
		return -1;
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	rc = n > 0 ? mounts_describe(text, path, buf, len) : -1;
	free(text);
	return rc;
}
