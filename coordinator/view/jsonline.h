/* SPDX-License-Identifier: MIT */
/* Reading one flat JSON object (an event line) into key/value pairs. */
#ifndef IOCURVE_JSONLINE_H
#define IOCURVE_JSONLINE_H

#include <stdbool.h>
#include <stddef.h>

#define JSONLINE_MAX_FIELDS 48

struct jsonline {
	size_t n;
	struct {
		const char *key;
		const char *val; /* strings unescaped; numbers and literals as written */
		bool is_str;
	} f[JSONLINE_MAX_FIELDS];
	char buf[4096];
};

/* Parse a flat object (no nested objects or arrays). 0, or -1 when it is not one. */
int jsonline_parse(struct jsonline *j, const char *line);
/* The value of key: NULL (str) or dflt (num) when absent. */
const char *jsonline_str(const struct jsonline *j, const char *key);
double jsonline_num(const struct jsonline *j, const char *key, double dflt);
bool jsonline_bool(const struct jsonline *j, const char *key);

#endif
