/* SPDX-License-Identifier: MIT */
/* Reading one flat JSON object (an event line) into key/value pairs. */
#include <stdlib.h>
#include <string.h>

#include "jsonline.h"

/* Copy a JSON string (p at the opening quote) into out, unescaped. Returns the end or NULL. */
static const char *jsonline_string(const char *p, char **out, char *end)
{
	char *o = *out;

	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if (o + 2 >= end)
			return NULL;
		if (*p == '\\') {
			p++;
			switch (*p) {
			case 'n':
				*o++ = '\n';
				break;
			case 't':
				*o++ = '\t';
				break;
			case 'u':
				/* Only control characters are escaped this way by our writer. */
				if (strlen(p) < 5)
					return NULL;
				*o++ = (char)strtol((char[]){p[1], p[2], p[3], p[4], 0}, NULL, 16);
				p += 4;
				break;
			case '\0':
				return NULL;
			default:
				*o++ = *p;
			}
			p++;
			continue;
		}
		*o++ = *p++;
	}
	if (*p != '"')
		return NULL;
	*o++ = '\0';
	*out = o;
	return p + 1;
}

int jsonline_parse(struct jsonline *j, const char *line)
{
	char *o = j->buf, *end = j->buf + sizeof(j->buf);
	const char *p = line;

	j->n = 0;
	while (*p == ' ')
		p++;
	if (*p++ != '{')
		return -1;
	while (*p == ' ')
		p++;
	if (*p == '}')
		return 0;
	for (;;) {
		if (j->n == JSONLINE_MAX_FIELDS)
			return -1;
		j->f[j->n].key = o;
		if ((p = jsonline_string(p, &o, end)) == NULL || *p++ != ':')
			return -1;
		j->f[j->n].val = o;
		if (*p == '"') {
			j->f[j->n].is_str = true;
			if ((p = jsonline_string(p, &o, end)) == NULL)
				return -1;
		} else {
			size_t n = strcspn(p, ",}");

			if (n == 0 || o + n + 1 >= end || *p == '{' || *p == '[')
				return -1;
			j->f[j->n].is_str = false;
			memcpy(o, p, n);
			o[n] = '\0';
			o += n + 1;
			p += n;
		}
		j->n++;
		if (*p == ',') {
			p++;
			continue;
		}
		return *p == '}' ? 0 : -1;
	}
}

const char *jsonline_str(const struct jsonline *j, const char *key)
{
	for (size_t i = 0; i < j->n; i++)
		if (strcmp(j->f[i].key, key) == 0)
			return j->f[i].val;
	return NULL;
}

double jsonline_num(const struct jsonline *j, const char *key, double dflt)
{
	const char *v = jsonline_str(j, key);

	return v != NULL ? strtod(v, NULL) : dflt;
}

bool jsonline_bool(const struct jsonline *j, const char *key)
{
	const char *v = jsonline_str(j, key);

	return v != NULL && strcmp(v, "true") == 0;
}
