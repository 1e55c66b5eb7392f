/* SPDX-License-Identifier: MIT */
/* A plan's NFS target checked against the agent's --allow and its credentials' rule. */
#ifndef IOCURVE_NFSTARGET_H
#define IOCURVE_NFSTARGET_H

#include <stdbool.h>
#include <stddef.h>

#include "allow.h"
#include "engine.h"
#include "error.h"
#include "iocurve.pb-c.h"

/*
 * target_dir (nfs://SERVER/EXPORT[/PATH]) must be n's server and export, plain, at or
 * beneath an --allow nfs:// entry; uid or gid 0 only with allow_root (--allow-nfs-root).
 * Fills out and resolved (the URL); -1 with err saying what is refused.
 */
int nfstarget_check(const struct allow *a, bool allow_root, const Iocurve__NfsTarget *n,
                    const char *target_dir, struct engine_nfs_params *out, char *resolved,
                    size_t len, struct error *err);

#endif
