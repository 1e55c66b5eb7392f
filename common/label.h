/* SPDX-License-Identifier: MIT */
/*
 * Agent labels: one representation from the agent's --label KEY=VALUE through its
 * Hello to the coordinator's sessions, a campaign's selection and `iocurve agents`.
 * A set of labels is an array of struct label and its count.
 */
#ifndef IOCURVE_LABEL_H
#define IOCURVE_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "iocurve.pb-c.h"

struct label {
	char *key;
	char *value;
};

/* "KEY=VALUE" appended to *v (a non-empty key before the first '='); -1 with err if not. */
int label_parse(const char *text, struct label **v, size_t *n, struct error *err);
/* Append a copy of key and value. */
void label_add(struct label **v, size_t *n, const char *key, const char *value);
/* "k=v,k2=v2" (sep between pairs) into buf; "" for none. */
void label_format(const struct label *v, size_t n, const char *sep, char *buf, size_t len);
/* Whether have carries every label of want, with the same value. */
bool label_include(const struct label *have, size_t nhave, const struct label *want, size_t nwant);
/* A deep copy of v (NULL for none). */
struct label *label_copy(const struct label *v, size_t n);
void label_free(struct label *v, size_t n);

/* From the wire: a deep copy of the message's labels. */
/* What an agent may declare: labels, each key and value. */
#define LABEL_MAX       32
#define LABEL_MAX_KEY   63
#define LABEL_MAX_VALUE 255
/* 0 when the wire's labels are within the limits above (keys not empty), else -1 and why. */
int label_check_wire(Iocurve__Label *const *w, size_t n, struct error *err);
struct label *label_from_wire(Iocurve__Label *const *w, size_t n);
/*
 * To the wire: n Label messages pointing into v, and their pointer array, in one
 * allocation (free() it); the strings stay v's.
 */
Iocurve__Label **label_to_wire(const struct label *v, size_t n);

#endif
