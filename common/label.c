/* SPDX-License-Identifier: MIT */
/* Agent labels: parse, format, match, copy, and to and from the wire. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label.h"
#include "text.h"
#include "xalloc.h"

int label_parse(const char *text, struct label **v, size_t *n, struct error *err)
{
	const char *eq = strchr(text, '=');
	char *key;

	if (eq == NULL || eq == text) {
		error_set(err, "label '%s': expected KEY=VALUE", text);
		return -1;
	}
	key = xstrndup(text, (size_t)(eq - text));
	label_add(v, n, key, eq + 1);
	free(key);
	return 0;
}

void label_add(struct label **v, size_t *n, const char *key, const char *value)
{
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[*n].key = xstrdup(key);
	(*v)[*n].value = xstrdup(value);
	(*n)++;
}

void label_format(const struct label *v, size_t n, const char *sep, char *buf, size_t len)
{
	size_t off = 0;

	if (len > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? sep : "", v[i].key,
		                        v[i].value);
}

bool label_include(const struct label *have, size_t nhave, const struct label *want, size_t nwant)
{
	for (size_t i = 0; i < nwant; i++) {
		size_t j;

		for (j = 0; j < nhave; j++)
			if (strcmp(have[j].key, want[i].key) == 0 &&
			    strcmp(have[j].value, want[i].value) == 0)
				break;
		if (j == nhave)
			return false;
	}
	return true;
}

struct label *label_copy(const struct label *v, size_t n)
{
	struct label *c = NULL;
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		label_add(&c, &m, v[i].key, v[i].value);
	return c;
}

void label_free(struct label *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].value);
	}
	free(v);
}

struct label *label_from_wire(Iocurve__Label *const *w, size_t n)
{
	struct label *c = NULL;
	size_t m = 0;

	/* Shown by `agents` and in logs: control characters arrive escaped. */
	for (size_t i = 0; i < n; i++) {
		char k[4 * LABEL_MAX_KEY + 1], v[4 * LABEL_MAX_VALUE + 1];

		label_add(&c, &m, text_clean(w[i]->key, k, sizeof(k), false),
		          text_clean(w[i]->value, v, sizeof(v), false));
	}
	return c;
}

Iocurve__Label **label_to_wire(const struct label *v, size_t n)
{
	/* The pointers first, then the messages they point at. */
	Iocurve__Label **p = xcalloc(1, n * (sizeof(*p) + sizeof(**p)) + 1);
	Iocurve__Label *msgs = (Iocurve__Label *)(p + n);

	for (size_t i = 0; i < n; i++) {
		iocurve__label__init(&msgs[i]);
		msgs[i].key = v[i].key;
		msgs[i].value = v[i].value;
		p[i] = &msgs[i];
	}
	return p;
}

int label_check_wire(Iocurve__Label *const *w, size_t n, struct error *err)
{
	if (n > LABEL_MAX) {
		error_set(err, "%zu labels, at most %d", n, LABEL_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = w[i]->key ? strlen(w[i]->key) : 0,
		       v = w[i]->value ? strlen(w[i]->value) : 0;

		if (k == 0 || k > LABEL_MAX_KEY || v > LABEL_MAX_VALUE) {
			error_set(
			    err, "label %zu: key of %zu bytes (1 to %d), value of %zu (at most %d)",
			    i, k, LABEL_MAX_KEY, v, LABEL_MAX_VALUE);
			return -1;
		}
	}
	return 0;
}
