/* SPDX-License-Identifier: MIT */
/* A worker's target kept honest, and a failed operation's cause in words. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "layout.h"
#include "log.h"
#include "units.h"
#include "worker_priv.h"

/*
 * Is the target still the file laid out? Its path must name the same inode, at
 * least as long as the plan's size, and (holes: at a step start) without holes:
 * a file deleted, replaced or truncated, or holes punched in it, would give
 * reads of nothing counted as I/O. Two stat calls; the hole walk is a few lseeks.
 */
void worker_target_check(struct worker *w, bool holes)
{
	const struct io_plan *cfg = w->cfg;
	const char *name = strrchr(cfg->path, '/');
	int dirfd = cfg->target_fd > 0 ? cfg->target_fd : AT_FDCWD;
	char a[16], b[16];
	struct stat st;
	uint64_t h = 0;

	if (!w->file || w->lost[0] != '\0')
		return;
	if (fstatat(dirfd, dirfd == AT_FDCWD ? cfg->path : name + 1, &st, AT_SYMLINK_NOFOLLOW) <
	    0) {
		snprintf(w->lost, sizeof(w->lost),
		         errno == ENOENT ? "file deleted" : "file gone: %s", strerror(errno));
	} else if (st.st_ino != w->ino || st.st_dev != w->dev) {
		snprintf(w->lost, sizeof(w->lost), "file replaced (inode changed)");
	} else if (fstat(w->fd, &st) == 0 && (uint64_t)st.st_size < cfg->file_size) {
		snprintf(w->lost, sizeof(w->lost), "file truncated to %llu bytes",
		         (unsigned long long)st.st_size);
	} else if (holes && layout_hole_bytes(w->fd, cfg->file_size, &h) == 0 && h > 0) {
		units_format_size(h, a, sizeof(a));
		units_format_size(cfg->file_size, b, sizeof(b));
		snprintf(w->lost, sizeof(w->lost),
		         "file has holes: %s of %s (made after its layout)", a, b);
	}
	if (w->lost[0] != '\0')
		log_warn("%s: %s; its operations fail from here on", cfg->path, w->lost);
}

/* A transfer shorter than the block, in words: a read past a file's end says how long it is. */
void worker_short_cause(const struct worker *w, uint16_t slot, int32_t res, char *buf, size_t len)
{
	struct stat st;

	if (!w->writing[slot] && w->file && fstat(w->fd, &st) == 0 &&
	    (uint64_t)st.st_size < w->cfg->file_size)
		snprintf(buf, len, "short read: file truncated to %llu bytes",
		         (unsigned long long)st.st_size);
	else
		snprintf(buf, len, "short %s: %d of %u bytes", w->writing[slot] ? "write" : "read",
		         (int)res, w->len[slot]);
}

/*
 * A file workload's step is over: its set put back as laid out before the step's last
 * interval is published (so the agent's StepDone, and the next step, wait for it), every
 * step then working on the same set. What changed is logged with the counts.
 */
void worker_files_put_back(struct worker *w)
{
	uint64_t made, removed, t0 = clock_now_ns();
	int rc = fset_restore(&w->fs, &made, &removed);

	if (made || removed || rc < 0)
		log_info("%s: file set put back after a step in %.1f ms: %llu made again, %llu "
		         "removed%s",
		         w->cfg->path, (double)(clock_now_ns() - t0) / 1e6,
		         (unsigned long long)made, (unsigned long long)removed,
		         rc < 0 ? "; some names could not be" : "");
}

/* A file operation that failed, in words: its kind and the path in the set. */
void worker_file_cause(const struct worker *w, uint16_t slot, int32_t res, char *buf, size_t len)
{
	const char *op = fileop_name((enum fileop)w->fop[slot]);

	if (res == -ENOENT && w->pick[slot].pool == NULL &&
	    (w->fop[slot] == FILEOP_CREATE || w->fop[slot] == FILEOP_MKDIR))
		snprintf(buf, len,
		         "%s: the file set holds this agent's share of --max-files (%llu)", op,
		         (unsigned long long)w->cfg->max_files);
	else if (res == -ENOENT && w->pick[slot].pool == NULL && w->fop[slot] != FILEOP_READDIR)
		snprintf(buf, len, "%s: no %s left in the file set to work on", op,
		         w->fop[slot] == FILEOP_RMDIR ? "empty directory" : "file");
	else if (res < 0)
		snprintf(buf, len, "%s %s: %s", op, w->path[slot], strerror(-res));
	else
		snprintf(buf, len, "%s %s: %d of %u bytes", op, w->path[slot], (int)res,
		         w->len[slot]);
}
