/* SPDX-License-Identifier: MIT */
/*
 * A name to index map: open addressing over the caller's own array of names.
 * The caller keeps the names (each entry's name is found through a callback), so
 * the map holds indexes only; finding one costs a hash and a strcmp or two, not
 * a scan. For the coordinator's agent registry and `report`'s replay at fleet scale.
 */
#ifndef IOCURVE_STRINDEX_H
#define IOCURVE_STRINDEX_H

#include <stddef.h>
#include <stdint.h>

/* The name of entry i, from arg: pass the struct that owns the array, which may move. */
typedef const char *(*strindex_name_fn)(const void *arg, size_t i);

struct strindex {
	uint32_t *slots; /* entry index + 1 (0: empty) */
	size_t cap;      /* a power of two, over twice the entries */
	size_t n;
	strindex_name_fn name;
	const void *arg;
};

void strindex_init(struct strindex *x, strindex_name_fn name, const void *arg);
/* The index of name, or -1. */
long strindex_find(const struct strindex *x, const char *name);
/* Entry i (the next one: i == entries so far) now has its name: index it. */
void strindex_add(struct strindex *x, size_t i);
void strindex_free(struct strindex *x);

#endif
