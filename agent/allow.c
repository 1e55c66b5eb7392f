/* SPDX-License-Identifier: MIT */
/* The agent's allow-list: realpath-resolved prefixes, no symlink escapes. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "allow.h"
#include "fsutil.h"
#include "text.h"
#include "xalloc.h"

/*
 * Why url is not a plain nfs://HOST/PATH (an export, or a directory within one), or NULL:
 * a host of letters, digits, '.', '-' and ':', an absolute plain path (text.h).
 */
static const char *allow_nfs_unplain(const char *url)
{
	const char *host = url + strlen(ALLOW_NFS), *path = strchr(host, '/');

	if (path == NULL || path == host)
		return "no host and path (nfs://HOST/EXPORT)";
	for (const char *p = host; p < path; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' || *p == ':'))
			return "a host that is not a name or an address";
	if (strcmp(path, "/") != 0 && path[strlen(path) - 1] == '/')
		return "a trailing '/'";
	return text_path_unplain(path);
}

int allow_add(struct allow *a, const char *path, struct error *err)
{
	char real[PATH_MAX];
	const char *why;

	if (allow_is_nfs(path)) {
		/* the server's namespace: nothing here to resolve, only plain names to compare */
		if ((why = allow_nfs_unplain(path)) != NULL) {
			error_set(err, "--allow %s: %s", path, why);
			return -1;
		}
		a->paths = xreallocarray(a->paths, a->n + 1, sizeof(*a->paths));
		a->paths[a->n++] = xstrdup(path);
		return 0;
	}
	if (realpath(path, real) == NULL) {
		error_set(err, "--allow %s: %s", path, strerror(errno));
		return -1;
	}
	a->paths = xreallocarray(a->paths, a->n + 1, sizeof(*a->paths));
	a->paths[a->n++] = xstrdup(real);
	return 0;
}

void allow_free(struct allow *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->paths[i]);
	free(a->paths);
	a->paths = NULL;
	a->n = 0;
}

static bool allow_covers(const char *allowed, const char *real)
{
	size_t n = strlen(allowed);

	/* a local path and an export never cover each other */
	if (allow_is_nfs(allowed) != allow_is_nfs(real))
		return false;
	if (strcmp(allowed, "/") == 0)
		return true;
	return strncmp(allowed, real, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

static void allow_list(const struct allow *a, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < a->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", a->paths[i]);
	if (a->n == 0)
		snprintf(buf, len, "(none)");
}

/*
 * Split path into the longest existing prefix (resolved by realpath) and the
 * rest, which must be plain names. The rest is appended to the resolved prefix.
 */
static int allow_resolve(const char *path, char *out, size_t len, struct error *err)
{
	char head[PATH_MAX], real[PATH_MAX];
	const char *tail;
	struct stat st;
	char *slash;

	if (path[0] != '/') {
		error_set(err, "target %s is not an absolute path", path);
		return -1;
	}
	if (strlen(path) >= sizeof(head)) {
		error_set(err, "target path is too long");
		return -1;
	}
	strcpy(head, path);
	for (;;) {
		if (realpath(head[0] ? head : "/", real) != NULL)
			break;
		if (errno != ENOENT) {
			error_set(err, "target %s: %s: %s", path, head, strerror(errno));
			return -1;
		}
		if (lstat(head, &st) == 0) {
			/* It exists, yet does not resolve: a dangling symlink. */
			error_set(err, "target %s: %s is a symlink to a path that does not exist",
			          path, head);
			return -1;
		}
		slash = strrchr(head, '/');
		if (slash == NULL)
			return -1;
		*slash = '\0';
	}
	tail = path + strlen(head);
	for (const char *p = tail; *p;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			error_set(err,
			          "target %s: '.' and '..' are not allowed in a path that does not "
			          "exist yet",
			          path);
			return -1;
		}
		p += n;
	}
	if ((size_t)snprintf(out, len, "%s%s%s", strcmp(real, "/") ? real : "",
	                     tail[0] == '/' || tail[0] == '\0' ? "" : "/", tail) >= len) {
		error_set(err, "target path is too long");
		return -1;
	}
	/* Drop a trailing slash so prefix checks compare like with like. */
	for (size_t n = strlen(out); n > 1 && out[n - 1] == '/'; n--)
		out[n - 1] = '\0';
	if (out[0] == '\0')
		snprintf(out, len, "/");
	return 0;
}

int allow_check(const struct allow *a, const char *path, char *resolved, size_t len,
                struct error *err)
{
	char list[1024];
	const char *why;

	if (allow_is_nfs(path)) {
		if ((why = allow_nfs_unplain(path)) != NULL) {
			error_set(err, "target %s: %s", path, why);
			return -1;
		}
		snprintf(resolved, len, "%s", path);
	} else if (allow_resolve(path, resolved, len, err) < 0) {
		return -1;
	}
	for (size_t i = 0; i < a->n; i++)
		if (allow_covers(a->paths[i], resolved))
			return 0;
	allow_list(a, list, sizeof(list));
	if (strcmp(path, resolved) == 0)
		error_set(err,
		          "target %s is outside the allowed paths (%s); start the agent with "
		          "--allow for it",
		          path, list);
	else
		error_set(err,
		          "target %s (really %s) is outside the allowed paths (%s); start the "
		          "agent with --allow for it",
		          path, resolved, list);
	return -1;
}

const char *allow_nfs_cover(const struct allow *a, const char *url)
{
	const char *best = NULL;

	for (size_t i = 0; i < a->n; i++)
		if (allow_is_nfs(a->paths[i]) && allow_covers(a->paths[i], url) &&
		    (best == NULL || strlen(a->paths[i]) > strlen(best)))
			best = a->paths[i];
	return best;
}

int allow_mkdirs(const struct allow *a, const char *resolved, struct error *err)
{
	char again[PATH_MAX];

	if (fs_mkdir_p(resolved, 0755, err) < 0) {
		error_prefix(err, "target %s: ", resolved);
		return -1;
	}
	/* A symlink planted between check and create must not win. */
	return allow_check(a, resolved, again, sizeof(again), err);
}

/* Why a directory others could plant files in is refused, or NULL. */
static const char *allow_dir_unsafe(const struct stat *st)
{
	if (st->st_uid != geteuid() && st->st_uid != 0)
		return "it belongs to another user";
	if ((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX))
		return "other users may write to it and it has no sticky bit";
	return NULL;
}

int allow_open_target(const struct allow *a, const char *path, const char *resolved, bool *device,
                      struct error *err)
{
	int fd = fs_open_nofollow(AT_FDCWD, resolved, O_PATH | O_CLOEXEC, 0);
	const char *why;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		error_set(err, "target %s: %s", path,
		          errno == ELOOP ? "a symbolic link appeared while opening it"
		                         : strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*device = S_ISBLK(st.st_mode);
	if (*device) {
		for (size_t i = 0; i < a->n; i++)
			if (strcmp(a->paths[i], resolved) == 0)
				return fd;
		error_set(err, "target %s is a block device not named exactly by an --allow path",
		          path);
	} else if (!S_ISDIR(st.st_mode)) {
		error_set(err, "target %s is neither a directory nor a block device", path);
	} else if ((why = allow_dir_unsafe(&st)) != NULL) {
		error_set(err, "target directory %s (uid %u, mode %04o) is refused: %s", path,
		          (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777), why);
	} else {
		return fd;
	}
	close(fd);
	return -1;
}
