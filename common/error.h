/* SPDX-License-Identifier: MIT */
/* User-visible errors: a message buffer the failing function fills in. */
#ifndef IOCURVE_ERROR_H
#define IOCURVE_ERROR_H

/*
 * Functions that can fail for a reason the user must see take a struct error *
 * and return -1 (or a negative errno); the message names what was wrong, where
 * (file:line:column, agent and path) and, when it helps, what to do.
 */
struct error {
	char msg[1024];
};

void error_set(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepend context: "loading plan: " + existing message. */
void error_prefix(struct error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
