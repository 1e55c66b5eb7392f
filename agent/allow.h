/* SPDX-License-Identifier: MIT */
/* The agent's allow-list: the only places a plan may make it touch. */
#ifndef IOCURVE_ALLOW_H
#define IOCURVE_ALLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "error.h"

struct allow {
	char **paths; /* realpath()ed, no trailing slash; or an export, nfs://HOST/PATH */
	size_t n;
};

#define ALLOW_NFS "nfs://"
static inline bool allow_is_nfs(const char *path)
{
	return strncmp(path, ALLOW_NFS, sizeof(ALLOW_NFS) - 1) == 0;
}

/*
 * Add PATH (must exist); it is resolved with realpath so later checks compare real paths.
 * nfs://HOST/EXPORT[/PATH] allows that export's directory and what is beneath it, on that
 * host as named (a plan's target must name it the same way); it must be plain.
 */
int allow_add(struct allow *a, const char *path, struct error *err);
void allow_free(struct allow *a);

/*
 * Resolve path as the kernel would (symlinks followed for the part that
 * exists; "." and ".." refused in the part that does not) and check the result
 * is an allowed path or below one (an nfs:// URL: named plainly, at or below an allowed
 * export's URL, as it is: resolved is the URL). On success writes the resolved path into
 * resolved; else err names the path and the allowed ones. Nothing is created.
 */
int allow_check(const struct allow *a, const char *path, char *resolved, size_t len,
                struct error *err);

/* The longest --allow nfs:// entry at or above url, or NULL. */
const char *allow_nfs_cover(const struct allow *a, const char *url);

/* mkdir -p for a directory allow_check accepted; re-checks the result. */
int allow_mkdirs(const struct allow *a, const char *resolved, struct error *err);

/*
 * Open a target allow_check accepted (resolved), following no symbolic link:
 * an O_PATH fd of a directory or a block device (*device says which). A block
 * device must be named exactly by an --allow path; a directory must belong to
 * this user (or root) and, when others may write to it, carry the sticky bit.
 * Returns the fd or -1 with err saying why (naming path, as the plan gave it).
 */
int allow_open_target(const struct allow *a, const char *path, const char *resolved, bool *device,
                      struct error *err);

#endif
