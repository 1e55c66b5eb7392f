/* SPDX-License-Identifier: MIT */
/* A name to index map over the caller's array (strindex.h). */
#include <stdlib.h>
#include <string.h>

#include "strindex.h"
#include "xalloc.h"

static size_t strindex_hash(const char *name)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */

	for (; *name != '\0'; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ull;
	return (size_t)h;
}

void strindex_init(struct strindex *x, strindex_name_fn name, const void *arg)
{
	memset(x, 0, sizeof(*x));
	x->name = name;
	x->arg = arg;
}

long strindex_find(const struct strindex *x, const char *name)
{
	size_t mask = x->cap - 1;

	if (x->cap == 0)
		return -1;
	for (size_t i = strindex_hash(name) & mask; x->slots[i] != 0; i = (i + 1) & mask)
		if (strcmp(x->name(x->arg, x->slots[i] - 1), name) == 0)
			return (long)(x->slots[i] - 1);
	return -1;
}

static void strindex_put(struct strindex *x, size_t entry)
{
	size_t mask = x->cap - 1, i = strindex_hash(x->name(x->arg, entry)) & mask;

	while (x->slots[i] != 0)
		i = (i + 1) & mask;
	x->slots[i] = (uint32_t)(entry + 1);
}

void strindex_add(struct strindex *x, size_t i)
{
	x->n = i + 1;
	if (2 * x->n < x->cap) {
		strindex_put(x, i);
		return;
	}
	free(x->slots);
	x->cap = x->cap ? 2 * x->cap : 64;
	while (2 * x->n >= x->cap)
		x->cap *= 2;
	x->slots = xcalloc(x->cap, sizeof(*x->slots));
	for (size_t k = 0; k < x->n; k++)
		strindex_put(x, k);
}

void strindex_free(struct strindex *x)
{
	free(x->slots);
	memset(x, 0, sizeof(*x));
}
