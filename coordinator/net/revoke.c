/* SPDX-License-Identifier: MIT */
/* The revocation list: agent names and certificate serials the coordinator refuses. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certs.h"
#include "revoke.h"
#include "xalloc.h"

/* One line: the text as written (a name), and as a serial when it reads as hex. */
struct revoke_entry {
	char *name;
	char *serial; /* upper case, no colons or leading zeros; NULL: not hex */
};

struct revoke {
	struct revoke_entry *e;
	size_t n;
};

/* "0x00:AB:cd" -> "ABCD"; NULL when the text is not hex. */
static char *revoke_serial(const char *text)
{
	char *out = xcalloc(1, strlen(text) + 2), *p = out;

	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
		text += 2;
	for (; *text; text++) {
		if (*text == ':')
			continue;
		if (!isxdigit((unsigned char)*text)) {
			free(out);
			return NULL;
		}
		if (p == out && *text == '0')
			continue;
		*p++ = (char)toupper((unsigned char)*text);
	}
	if (p == out)
		*p = '0';
	return out;
}

/* Cut the comment and the blanks around what is left; the entry, or "" for none. */
static char *revoke_trim(char *line)
{
	char *hash = strchr(line, '#'), *end;

	if (hash != NULL)
		*hash = '\0';
	while (isspace((unsigned char)*line))
		line++;
	end = line + strlen(line);
	while (end > line && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return line;
}

struct revoke *revoke_load(const char *path, struct error *err)
{
	struct revoke *rv = xcalloc(1, sizeof(*rv));
	FILE *f = fopen(path, "re");
	char *line = NULL, *entry;
	size_t cap = 0, lineno = 0;

	if (f == NULL) {
		if (errno == ENOENT)
			return rv;
		error_set(err, "%s: %s", path, strerror(errno));
		free(rv);
		return NULL;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *serial;

		lineno++;
		entry = revoke_trim(line);
		if (*entry == '\0')
			continue;
		serial = revoke_serial(entry);
		if (serial == NULL && !certs_name_valid(entry)) {
			error_set(err, "%s:%zu: '%.64s' is neither an agent name nor a hex serial",
			          path, lineno, entry);
			revoke_free(rv);
			rv = NULL;
			break;
		}
		rv->e = xreallocarray(rv->e, rv->n + 1, sizeof(*rv->e));
		rv->e[rv->n].name = xstrdup(entry);
		rv->e[rv->n++].serial = serial;
	}
	free(line);
	fclose(f);
	return rv;
}

bool revoke_match(const struct revoke *rv, const char *name, const char *serial)
{
	char *mine = serial && serial[0] ? revoke_serial(serial) : NULL;
	bool hit = false;

	for (size_t i = 0; rv != NULL && i < rv->n && !hit; i++)
		hit =
		    strcmp(rv->e[i].name, name) == 0 ||
		    (mine != NULL && rv->e[i].serial != NULL && strcmp(rv->e[i].serial, mine) == 0);
	free(mine);
	return hit;
}

size_t revoke_count(const struct revoke *rv)
{
	return rv ? rv->n : 0;
}

void revoke_free(struct revoke *rv)
{
	if (rv == NULL)
		return;
	for (size_t i = 0; i < rv->n; i++) {
		free(rv->e[i].name);
		free(rv->e[i].serial);
	}
	free(rv->e);
	free(rv);
}
