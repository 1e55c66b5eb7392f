/* SPDX-License-Identifier: MIT */
/* A worker's file operations: what each works on, its words when it fails, the set put back. */
#include <errno.h>
#include <stdio.h>

#include "clock.h"
#include "log.h"
#include "worker_priv.h"

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

/*
 * A file operation of stream k in slot io->slot: what it works on picked from the set
 * (a whole-file write's data made first), its paths in the slot's own buffers.
 */
void worker_issue_file(struct worker *w, unsigned k, struct engine_io *io)
{
	enum fileop op = w->stream[k].op;
	uint16_t slot = io->slot;

	fset_pick(&w->fs, op, &w->pick[slot], w->path[slot], w->path2[slot], &io->len);
	io->op = op;
	io->dirfd = w->fs.fd;
	io->direct = w->cfg->io.direct;
	io->path = w->path[slot];
	io->path2 = w->path2[slot];
	io->offset = 0;
	io->write = fileop_modifies(op);
	w->fop[slot] = (uint8_t)op;
	if (op == FILEOP_WRITE_FILE)
		datagen_fill(w->data, w->ops->buffer(w->eng, (uint16_t)(w->slot_base + slot)));
}
