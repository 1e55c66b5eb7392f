/* SPDX-License-Identifier: MIT */
/* A worker's stream made ready: its target opened and checked, its data, sizes and pattern. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "engine.h"
#include "layout.h"
#include "schedwait.h"
#include "fset_nfs.h"
#include "log.h"
#include "nfslayout.h"
#include "safefile.h"
#include "units.h"
#include "verify.h"
#include "worker_priv.h"
#include "xalloc.h"

/* The data the plan writes (compress, dedupe) and lays out (clone): block size and seed unset. */
static void worker_data(const struct io_plan *cfg, struct datagen_config *dc)
{
	memset(dc, 0, sizeof(*dc));
	dc->compress_pct = cfg->io.compress_pct;
	dc->dedupe_pct = cfg->io.dedupe_pct;
	snprintf(dc->clone, sizeof(dc->clone), "%s", cfg->io.clone);
	dc->verify = cfg->io.verify;
	dc->worker = cfg->index;
}

/*
 * Stream k's sizes (a mix's part's, or the plain workload's) into st, and the
 * alignment its offsets need: every size's common divisor, so that a sequential
 * walk stepping by any of them stays aligned (the plan's align when it gives one).
 */
static uint32_t worker_sizes(const struct io_plan *cfg, const struct mix_sizes *sz,
                             uint32_t block_size, struct worker_stream *st)
{
	uint32_t align = block_size;

	st->nsizes = sz->n;
	for (uint32_t i = 0; i < sz->n; i++) {
		st->size[i] = sz->s[i].bytes;
		st->weight[i] = sz->s[i].pct;
		st->credit[i] = 0;
		align = (uint32_t)pattern_gcd(align, sz->s[i].bytes);
	}
	return cfg->io.align ? cfg->io.align : align;
}

/*
 * Stream k's access pattern: the plan's (or its part's) mix, alignment and
 * distribution over this worker's region (the pool's share of the working set).
 */
static void worker_pattern(const struct io_plan *cfg, unsigned k, struct worker_stream *st,
                           struct pattern_config *pc)
{
	const struct io_settings *io = &cfg->io;
	const struct mix_part *mp = io->mix.nparts > 0 ? &io->mix.parts[k] : NULL;

	memset(pc, 0, sizeof(*pc));
	pc->rw = mp ? mp->rw : io->rw;
	pc->read_pct = mp ? mp->read_pct : io->read_pct;
	pc->block_size = mp ? mp->block_size : io->block_size;
	pc->align = worker_sizes(cfg, mp ? &mp->sizes : &io->mix.sizes, pc->block_size, st);
	if (mp == NULL && io->mix.sizes.n == 0)
		pc->align = io->align;
	pc->region_offset = cfg->region_offset;
	pc->region_len = cfg->region_len;
	if (pc->region_len == 0) {
		pc->region_offset = 0;
		pc->region_len = cfg->file_size;
	}
	pc->dist = (enum pattern_dist)io->dist;
	pc->zipf_theta = io->zipf_theta;
	pc->hot_set_pct = io->hot_set_pct;
	pc->hot_ops_pct = io->hot_ops_pct;
	/* each part draws its own offsets */
	pc->seed = cfg->seed ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull);
}

/*
 * sync: dsync. The layout writes without it (it would only be slower); the worker's own
 * descriptor is then opened again, the same file through /proc/self/fd, with O_DSYNC
 * added to its flags (fcntl cannot set it), so every write it issues is synced.
 */
static int worker_reopen_dsync(struct worker *w, const char *path, struct error *err)
{
	char proc[64];
	int flags = fcntl(w->fd, F_GETFL), fd;

	if (flags < 0) {
		error_set(err, "%s: fcntl: %s", path, strerror(errno));
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", w->fd);
	fd = open(proc, (flags & (O_ACCMODE | O_DIRECT)) | O_DSYNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		error_set(err, "%s: opening it O_DSYNC (sync: dsync): %s", path, strerror(errno));
		return -1;
	}
	close(w->fd);
	w->fd = fd;
	return 0;
}

/* A worker's file set's seed: each file's size follows from it and the file's place. */
static uint64_t worker_set_seed(const struct io_plan *cfg)
{
	return 0x5eedf11e5ull + (uint64_t)cfg->index * 0x9e3779b97f4a7c15ull;
}

/*
 * A file workload's set: laid out in the target directory (AGENT-wN.set), or on a sim, its
 * names only. Each file's size is fixed by its place and the worker's index, so a set laid
 * out before is found as it was.
 */
static int worker_open_files(struct worker *w, const struct io_plan *cfg, struct error *err)
{
	uint64_t seed = worker_set_seed(cfg), written = 0;

	w->files = true;
	w->fd = -1;
	if (cfg->sim != NULL) {
		w->ops = &engine_sim_ops;
		fset_virtual(&w->fs, &cfg->io.mix.fileset, seed, cfg->max_files);
		return 0;
	}
	if (fset_layout(&w->fs, cfg->target_fd > 0 ? cfg->target_fd : AT_FDCWD,
	                cfg->target_fd > 0 ? strrchr(cfg->path, '/') + 1 : cfg->path, cfg->path,
	                &cfg->io.mix.fileset, seed, cfg->max_files, &cfg->slot->bytes_laid_out,
	                &written, err) < 0)
		return -1;
	cfg->slot->bytes_laid_out = written;
	return 0;
}

/* An NFS target: the worker's file laid out over the agent's own client, its engine's. */
static int worker_open_nfs(struct worker *w, const struct io_plan *cfg, struct error *err)
{
	uint64_t written = 0;
	struct datagen_config dc;

	w->ops = &engine_nfs_ops;
	w->nfs_path = nfslayout_within(cfg->nfs, cfg->path);
	if (w->nfs_path == NULL || w->nfs_path[0] == '\0') {
		error_set(err, "%s: not within the export %s of %s", cfg->path, cfg->nfs->export,
		          cfg->nfs->server);
		return -1;
	}
	if (mix_is_files(&cfg->io.mix)) {
		w->files = true;
		if (fset_nfs_layout(&w->fs, cfg->nfs, w->nfs_path, &cfg->io.mix.fileset,
		                    worker_set_seed(cfg), cfg->max_files,
		                    &cfg->slot->bytes_laid_out, &written, err) < 0)
			return -1;
		cfg->slot->bytes_laid_out = written;
		return 0;
	}
	worker_data(cfg, &dc);
	if (nfslayout_file(cfg->nfs, w->nfs_path, cfg->file_size, &dc, &cfg->slot->bytes_laid_out,
	                   &written, err) < 0)
		return -1;
	cfg->slot->bytes_laid_out = written;
	return 0;
}

/* Open the target as the config says: a simulated device, a block device, or a laid-out file. */
static int worker_open_target(struct worker *w, const struct io_plan *cfg, struct error *err)
{
	uint64_t written = 0;
	struct datagen_config dc;
	struct stat st;

	if (cfg->nfs != NULL)
		return worker_open_nfs(w, cfg, err);

	if (mix_is_files(&cfg->io.mix))
		return worker_open_files(w, cfg, err);
	if (cfg->sim != NULL) {
		w->ops = &engine_sim_ops;
		return 0;
	}
	if (cfg->device) {
		w->fd =
		    layout_open_device(cfg->target_fd > 0 ? cfg->target_fd : -1, cfg->path,
		                       cfg->file_size, cfg->io.direct, rw_writes(cfg->io.rw), err);
		if (w->fd >= 0 && cfg->io.dsync)
			return worker_reopen_dsync(w, cfg->path, err);
		return w->fd < 0 ? -1 : 0;
	}
	worker_data(cfg, &dc);
	if (cfg->target_fd > 0)
		w->fd = layout_open_at(cfg->target_fd, strrchr(cfg->path, '/') + 1, cfg->path,
		                       cfg->file_size, cfg->io.direct, &dc,
		                       &cfg->slot->bytes_laid_out, &written, err);
	else
		w->fd = layout_open(cfg->path, cfg->file_size, cfg->io.direct, &dc,
		                    &cfg->slot->bytes_laid_out, &written, err);
	if (w->fd < 0)
		return -1;
	cfg->slot->bytes_laid_out = written;
	if (cfg->io.dsync && worker_reopen_dsync(w, cfg->path, err) < 0)
		return -1;
	if (fstat(w->fd, &st) < 0) {
		error_set(err, "%s: fstat: %s", cfg->path, strerror(errno));
		return -1;
	}
	w->file = true;
	w->dev = st.st_dev;
	w->ino = st.st_ino;
	return 0;
}

int worker_setup(struct worker *w, const struct io_plan *cfg, struct error *err)
{
	const char *what = cfg->sim != NULL ? "sim" : cfg->path;
	uint32_t bs = cfg->io.block_size, qd = cfg->io.queue_depth;
	struct pattern_config pc;
	struct datagen_config dc;

	/* block_size is the largest block: every slot's buffer holds any operation */
	if (bs == 0 || qd == 0 || qd > UINT16_MAX ||
	    (cfg->file_size < bs && !mix_is_files(&cfg->io.mix))) {
		error_set(err,
		          "%s: invalid worker settings (block size %u, queue depth %u, size %llu)",
		          what, bs, qd, (unsigned long long)cfg->file_size);
		return -1;
	}
	w->nparts = cfg->io.mix.nparts;
	w->nstreams = w->nparts > 0 ? w->nparts : 1;
	for (unsigned k = 0; k < w->nstreams; k++) {
		w->stream[k].op = mix_op(&cfg->io.mix, w->nparts > 0 ? (int)k : -1);
		w->share[k] = w->nparts > 0 ? cfg->io.mix.parts[k].share : 100;
		w->credit[k] = 0;
		if (w->stream[k].op != FILEOP_NONE)
			continue; /* a file operation names its file, not an offset */
		worker_pattern(cfg, k, &w->stream[k], &pc);
		if (pattern_init(&w->stream[k].pat, &pc, err) < 0) {
			if (w->nparts > 0)
				error_prefix(err, "%s: mix part %s: ", what,
				             cfg->io.mix.parts[k].name);
			else
				error_prefix(err, "%s: ", what);
			return -1;
		}
	}
	if (worker_open_target(w, cfg, err) < 0)
		return -1;
	/* a simulated device moves no data: nothing to stamp or check */
	w->verify = cfg->io.verify && cfg->sim == NULL;
	w->sum = verify_sum_of_method(cfg->io.verify);
	w->realtime_off = verify_realtime_offset();
	if (w->verify) {
		/* the worker knows its file, not its agent's name: the file is named after it */
		const char *base = strrchr(cfg->path, '/'), *dash;

		base = base ? base + 1 : cfg->path;
		dash = strrchr(base, '-');
		snprintf(w->agent, sizeof(w->agent), "%.*s",
		         (int)(dash && dash > base ? dash - base : (ptrdiff_t)strlen(base)), base);
	}
	if (rw_writes(cfg->io.rw)) {
		worker_data(cfg, &dc);
		dc.block_size = bs;
		dc.seed = cfg->seed;
		w->data = datagen_new(&dc);
	}
	w->intended = xcalloc(qd, sizeof(*w->intended));
	w->submitted = xcalloc(qd, sizeof(*w->submitted));
	w->queued = xcalloc(qd, sizeof(*w->queued));
	w->slot_wait = xcalloc(qd, sizeof(*w->slot_wait));
	w->writing = xcalloc(qd, sizeof(*w->writing));
	w->syncing = xcalloc(qd, sizeof(*w->syncing));
	w->sync_every = cfg->io.fsync ? cfg->io.fsync : cfg->io.fdatasync;
	w->sync_kind = cfg->io.fsync       ? ENGINE_SYNC_FSYNC
	               : cfg->io.fdatasync ? ENGINE_SYNC_FDATASYNC
	                                   : ENGINE_SYNC_NONE;
	w->offset = xcalloc(qd, sizeof(*w->offset));
	w->part = xcalloc(qd, sizeof(*w->part));
	w->len = xcalloc(qd, sizeof(*w->len));
	replay_src_init(&w->rp, cfg->replay, cfg->index);
	if (w->files) {
		w->fop = xcalloc(qd, sizeof(*w->fop));
		w->pick = xcalloc(qd, sizeof(*w->pick));
		w->path = xcalloc(qd, sizeof(*w->path));
		w->path2 = xcalloc(qd, sizeof(*w->path2));
	}
	w->free_slots = xcalloc(qd, sizeof(*w->free_slots));
	w->done = xcalloc(qd, sizeof(*w->done));
	w->cur = xcalloc(1, sizeof(*w->cur));
	for (uint32_t i = 0; i < qd; i++)
		w->free_slots[w->nfree++] = (uint16_t)(qd - 1 - i);
	return 0;
}

void worker_teardown(struct worker *w)
{
	schedwait_close(&w->sched);
	if (w->fd >= 0)
		close(w->fd);
	free(w->intended);
	free(w->submitted);
	free(w->queued);
	free(w->slot_wait);
	free(w->writing);
	free(w->syncing);
	free(w->offset);
	free(w->part);
	free(w->len);
	free(w->free_slots);
	free(w->done);
	if (w->files)
		fset_close(&w->fs);
	free(w->fop);
	free(w->pick);
	free(w->path);
	free(w->path2);
	if (w->cur != NULL)
		record_release(&w->cur->rec);
	free(w->cur);
	datagen_free(w->data);
	if (w->dump_fd >= 0)
		close(w->dump_fd);
}
