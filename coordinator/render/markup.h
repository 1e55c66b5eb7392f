/* SPDX-License-Identifier: MIT */
/* Escaping text for XML and HTML (the SVG plots, report.html, compare.html). */
#ifndef IOCURVE_MARKUP_H
#define IOCURVE_MARKUP_H

#include <stddef.h>
#include <stdio.h>

/*
 * Write n bytes of s as text or attribute value: the markup characters as
 * entities, NUL as U+FFFD, other control characters (XML 1.0 forbids them) as
 * '?'. NULL writes nothing.
 */
void markup_escape_n(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated string. */
void markup_escape(FILE *f, const char *s);

#endif
