/* SPDX-License-Identifier: MIT */
/* Allocation wrappers that never return NULL: they abort with a message. */
#ifndef IOCURVE_XALLOC_H
#define IOCURVE_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
