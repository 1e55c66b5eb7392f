/* SPDX-License-Identifier: MIT */
/* The revocation list: agent names and certificate serials the coordinator refuses. */
#ifndef IOCURVE_REVOKE_H
#define IOCURVE_REVOKE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"

struct revoke;

/*
 * Read PATH: one agent name or hex serial (colons and a 0x prefix allowed) per line;
 * blank lines and text from '#' on are ignored. A missing file is an empty list.
 * Returns the list, or NULL with err naming PATH:LINE and the entry that is neither.
 */
struct revoke *revoke_load(const char *path, struct error *err);
/* Whether a certificate of this CN and serial (upper-case hex) is revoked. */
bool revoke_match(const struct revoke *rv, const char *name, const char *serial);
size_t revoke_count(const struct revoke *rv);
void revoke_free(struct revoke *rv);

#endif
