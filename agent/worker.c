/* SPDX-License-Identifier: MIT */
/* A worker: open-loop I/O on one target through one engine, published per interval. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "engine.h"
#include "schedwait.h"
#include "log.h"
#include "verify.h"
#include "worker_priv.h"
#include "xalloc.h"

/* A step's last operations may take this long to complete before they are charged as missing. */
#define WORKER_DRAIN_MAX_NS NSEC_PER_SEC

static void worker_dump_flush(struct worker *w)
{
	if (w->dump_fd >= 0 && w->dump_len > 0 &&
	    write(w->dump_fd, w->dump_buf, w->dump_len) != (ssize_t)w->dump_len)
		w->dump_fd = -1; /* a test hook gives up quietly; the test sees the gap */
	w->dump_len = 0;
}

static void worker_dump(struct worker *w, uint64_t intended)
{
	if (w->dump_len + 24 > sizeof(w->dump_buf))
		worker_dump_flush(w);
	w->dump_len +=
	    (size_t)snprintf(w->dump_buf + w->dump_len, 24, "%llu\n", (unsigned long long)intended);
}

/*
 * Copy the step block the way a seqlock reader does: the fields are plain, so a
 * copy that straddles a new generation is thrown away and taken again.
 */
void worker_step_load(const struct worker *w, struct worker_step *s)
{
	const struct shm_step *st = w->cfg->step;
	const volatile struct shm_step *v = st;

	for (;;) {
		s->gen = atomic_load_explicit(&st->gen, memory_order_acquire);
		if (s->gen & 1) {
			/* The agent is mid-write: a few stores, so yield rather than sleep. */
			sched_yield();
			continue;
		}
		s->start_ns = v->start_ns;
		s->interval_ns = v->interval_ns;
		s->nintervals = v->nintervals;
		s->stop = v->stop != 0;
		s->rate = v->plan[w->cfg->index].rate;
		s->work_ops = v->work_ops;
		s->think_ns = v->think_ns;
		s->start_off_ns = v->plan[w->cfg->index].start_ns;
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&st->gen, memory_order_relaxed) == s->gen)
			return;
	}
}

/* The agent replaced the step or asked for the stop: the current step is over. */
static bool worker_step_changed(struct worker *w, uint64_t gen)
{
	struct worker_step s;

	worker_step_load(w, &s);
	if (s.stop)
		w->stop = true;
	return s.stop || s.gen != gen;
}

/*
 * The dead-man: an agent that has not heard its coordinator for deadman_ns (dead,
 * stopped or cut off) supervises nothing, so the step ends before another operation
 * goes out and the worker leaves once its in-flight I/O is drained.
 */
static bool worker_deadman(struct worker *w, uint64_t now)
{
	w->silent_ns = shm_deadman_overdue(w->cfg->step, now);
	if (w->silent_ns)
		w->stop = true;
	return w->silent_ns != 0;
}

/* A sleep in a step never outlasts a quarter of the dead-man, so it is checked in time. */
static uint64_t worker_deadman_wait(const struct worker *w, uint64_t wait_ns)
{
	uint64_t quarter = w->cfg->step->deadman_ns / 4;

	return quarter && wait_ns > quarter ? quarter : wait_ns;
}

/*
 * Of an operation's lag, the wait for a slot: the queue depth's, not lateness. An
 * operation due before the queue filled had a slot free then and the client did not
 * issue it: it is the client's backlog (a worker held from running owes what fell due
 * meanwhile, and its burst is what fills the queue), and its whole lag is lateness; more
 * slots would only have moved that burst, which the plan never asked for, into the
 * storage. One due after it waits for a slot from when it was due, or from when the last
 * of that backlog got its slot if later, to when the storage freed one.
 */
static uint64_t worker_slot_wait(struct worker *w, uint64_t intended, uint64_t now)
{
	uint64_t to = w->slot_freed < now ? w->slot_freed : now;
	uint64_t from = intended > w->backlog_out ? intended : w->backlog_out;

	if (intended < w->slot_full_at) {
		w->backlog_out = to;
		return 0;
	}
	return from < to ? to - from : 0;
}

/* To the ring the process's streams share: the stream's own file and part of the slots. */
static void worker_queue(struct worker *w, struct engine_io *io)
{
	io->slot = (uint16_t)(w->slot_base + io->slot);
	io->file = w->file_index;
	w->ops->queue(w->eng, io);
}

/*
 * A file operation of stream k in slot io->slot: what it works on picked from the set
 * (a whole-file write's data made first), its paths in the slot's own buffers.
 */
static void worker_issue_file(struct worker *w, unsigned k, struct engine_io *io)
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

static void worker_issue(struct worker *w, uint64_t intended, uint64_t now)
{
	unsigned k = w->nstreams > 1 ? mix_pick(w->credit, w->share, w->nstreams) : 0;
	struct worker_stream *st = &w->stream[k];
	struct pattern_op op;
	struct engine_io io = {.op = FILEOP_NONE};

	io.slot = w->free_slots[--w->nfree];
	if (st->op != FILEOP_NONE) {
		/* a file operation: its file and length from the set, no offset */
		worker_issue_file(w, k, &io);
		op.offset = 0;
		op.write = io.write;
	} else if (w->cfg->replay != NULL) {
		/* the operation replay_next gave this due time (a replay is never a mix) */
		op.offset = w->rp.cur->offset;
		op.write = w->rp.cur->write;
		io.len = w->rp.cur->len;
	} else if (st->nsizes == 0) {
		io.len = st->pat.cfg.block_size;
		pattern_next(&st->pat, &op);
	} else {
		io.len = st->size[mix_pick(st->credit, st->weight, st->nsizes)];
		pattern_next_len(&st->pat, &op, io.len);
	}
	w->part[io.slot] = (uint8_t)k;
	w->len[io.slot] = io.len;
	io.offset = op.offset;
	io.write = op.write;
	if (op.write && st->op == FILEOP_NONE) {
		void *buf = w->ops->buffer(w->eng, (uint16_t)(w->slot_base + io.slot));

		datagen_fill(w->data, buf);
		if (w->verify)
			verify_stamp(buf, io.len, io.offset, w->cfg->index, now + w->realtime_off,
			             w->sum);
	}
	w->intended[io.slot] = intended;
	w->submitted[io.slot] = now;
	w->queued[w->nqueued++] = io.slot;
	w->slot_wait[io.slot] = worker_slot_wait(w, intended, now);
	w->writing[io.slot] = op.write;
	w->syncing[io.slot] = false;
	w->offset[io.slot] = op.offset;
	io.sync = ENGINE_SYNC_NONE;
	worker_queue(w, &io);
	if (w->dump_fd >= 0)
		worker_dump(w, intended);
	/* syncs follow data writes; a file operation's own calls are its whole */
	if (!op.write || st->op != FILEOP_NONE)
		return;
	w->writes_inflight++;
	if (w->sync_every != 0 && ++w->writes_issued % w->sync_every == 0) {
		w->sync_due = true;
		w->sync_due_ns = now;
	}
}

/*
 * The sync due goes out in a free slot: every write before it has completed. What fell
 * due while it waited for them waited for the storage, as for a slot: slot wait, not the
 * client's lateness.
 */
static void worker_issue_sync(struct worker *w, uint64_t now)
{
	struct engine_io io = {
	    .slot = w->free_slots[--w->nfree], .sync = w->sync_kind, .op = FILEOP_NONE};

	w->intended[io.slot] = w->sync_due_ns;
	w->submitted[io.slot] = now;
	w->queued[w->nqueued++] = io.slot;
	w->slot_wait[io.slot] = 0;
	w->writing[io.slot] = false;
	w->syncing[io.slot] = true;
	w->offset[io.slot] = 0;
	if (w->sync_due_ns < now && w->slot_freed < now) {
		w->slot_freed = now;
		/* held since the sync fell due (or since the queue filled, if before) */
		w->slot_full_at =
		    w->full_at && w->full_at < w->sync_due_ns ? w->full_at : w->sync_due_ns;
	}
	w->sync_due = false;
	worker_queue(w, &io);
}

/*
 * What was queued goes to the kernel now: its submission time is this clock read, not the
 * wake's that built the batch (a second read per wake, never per operation).
 */
void worker_stamp_submitted(struct worker *w)
{
	uint64_t t;

	if (w->nqueued == 0)
		return;
	t = clock_now_ns();
	for (uint32_t i = 0; i < w->nqueued; i++) {
		uint16_t slot = w->queued[i];

		/* closed loop: due when issued, so its latency stays its service time */
		if (w->intended[slot] == w->submitted[slot])
			w->intended[slot] = t;
		w->submitted[slot] = t;
	}
	w->nqueued = 0;
}

/* A sync completed: its own count and latency (submission to completion), never an op's. */
static void worker_reap_sync(struct worker *w, const struct engine_completion *c, uint64_t at)
{
	struct record *r = &w->cur->rec;
	uint16_t slot = c->slot;

	if (w->lost[0] != '\0') {
		record_error(r, 0, 0, w->cfg->path, w->lost);
		return;
	}
	if (c->res < 0) {
		record_error(r, -c->res, 0, w->cfg->path,
		             w->sync_kind == ENGINE_SYNC_FDATASYNC ? "fdatasync failed"
		                                                   : "fsync failed");
		return;
	}
	r->syncs++;
	hist_record(&r->sync_latency, at > w->submitted[slot] ? at - w->submitted[slot] : 0);
}

/*
 * An operation that did not complete in its step (never issued, or still in
 * flight when the wait for it ended) waited at least lower_ns: that goes into
 * the latency histogram as a lower bound, and the record says how many did.
 */
static void worker_charge(struct worker *w, uint64_t lower_ns)
{
	hist_record(&w->cur->rec.latency, lower_ns);
	w->cur->rec.missed_charged++;
}

/* The next operation's due time: the replay's, or the arrivals'. */
static inline uint64_t worker_next_due(struct worker *w)
{
	return w->cfg->replay != NULL ? replay_next(&w->rp) : arrivals_next(&w->arr);
}

/* Operations due before t that have not been issued: the client is this far behind. */
static uint64_t worker_backlog(const struct worker *w, uint64_t next, uint64_t t)
{
	if (next >= t)
		return 0;
	return 1 + (w->cfg->replay != NULL ? replay_due_before(&w->rp, t)
	                                   : arrivals_due_before(&w->arr, t));
}

/* An operation's delays: the client's (issue lateness, reap delay) and the queue depth's. */
static void worker_health(struct record *r, uint64_t late, uint64_t slot_wait, uint64_t reap)
{
	uint64_t d = late + reap;

	r->issue_late_ns += late;
	r->slot_wait_ns += slot_wait;
	r->reap_delay_ns += reap;
	r->late_10us += d > 10 * NSEC_PER_USEC;
	r->late_100us += d > 100 * NSEC_PER_USEC;
	r->late_1ms += d > NSEC_PER_MSEC;
	r->late_10ms += d > 10 * NSEC_PER_MSEC;
}

/*
 * verify: a read's blocks against their headers. A block that fails is a mismatch
 * (each one counted) and its read an error, named in words on the record when it is
 * the interval's first; true when the read failed so.
 */
static bool worker_verify_read(struct worker *w, uint16_t slot)
{
	struct record *r = &w->cur->rec;
	struct verify_bad bad;
	char words[RECORD_CAUSE_MAX] = "";
	uint32_t n = verify_check(w->ops->buffer(w->eng, (uint16_t)(w->slot_base + slot)),
	                          w->len[slot], w->offset[slot], &bad);

	if (n == 0)
		return false;
	r->mismatches += n;
	if (!record_err_kept(r))
		verify_words(&bad, w->cfg->path, w->agent, w->cfg->index, words, sizeof(words));
	record_error(r, 0, bad.offset, w->cfg->path, words);
	return true;
}

/*
 * A full queue freed n slots, seen at now: freed when the first of them completed where
 * the engine says so (the sim), not when a worker held from running saw it (that delay is
 * the client's: its reap delay, and lateness for what was due meanwhile).
 */
static void worker_slot_freed(struct worker *w, int n, uint64_t now)
{
	uint64_t first = now;

	/* io_uring stamps no completion (done_ns 0): no walk of its batch at saturation */
	for (int i = 0; w->cfg->sim != NULL && i < n; i++)
		if (w->done[i].done_ns != 0 && w->done[i].done_ns < first)
			first = w->done[i].done_ns;
	w->slot_freed = first > w->full_at ? first : w->full_at;
	w->slot_full_at = w->full_at;
}

/*
 * Count a reaped batch, all completed at now, into the current interval. Returns the
 * data operations of it, left first in w->done (the syncs' entries are taken out).
 */
int worker_reap(struct worker *w, int n, uint64_t now, bool count)
{
	struct shm_interval *iv = w->cur;
	int data = 0;

	for (int i = 0; i < n; i++) {
		uint16_t slot = w->done[i].slot;
		uint32_t bs = w->len[slot];
		/* The device's own finish time when it knows it (sim), else this batch's. */
		uint64_t at = w->done[i].done_ns ? w->done[i].done_ns : now, lag, lat, svc;

		w->free_slots[w->nfree++] = slot;
		if (w->syncing[slot]) {
			w->syncing[slot] = false;
			if (count)
				worker_reap_sync(w, &w->done[i], at);
			continue;
		}
		if (w->files && w->fop[slot] != FILEOP_NONE)
			fset_done(&w->fs, (enum fileop)w->fop[slot], &w->pick[slot],
			          w->done[i].res);
		else
			w->writes_inflight -= w->writing[slot] && w->writes_inflight > 0;
		w->done[data++] = w->done[i];
		if (!count)
			continue;
		if (w->lost[0] != '\0') {
			/* Done on a file that is no longer the target: not the plan's I/O. */
			record_error(&iv->rec, 0, w->offset[slot], w->cfg->path, w->lost);
			continue;
		}
		if (w->done[i].res != (int32_t)bs) {
			char cause[RECORD_CAUSE_MAX] = "";

			/* A short transfer has no errno: its words say what happened (once). */
			if (w->files && !record_err_kept(&iv->rec))
				worker_file_cause(w, slot, w->done[i].res, cause, sizeof(cause));
			else if (w->done[i].res >= 0 && !record_err_kept(&iv->rec))
				worker_short_cause(w, slot, w->done[i].res, cause, sizeof(cause));
			record_error(&iv->rec, w->done[i].res < 0 ? -w->done[i].res : 0,
			             w->offset[slot], w->cfg->path, cause);
			if (w->nparts > 0)
				iv->rec.parts[w->part[slot]].errors++;
			continue;
		}
		if (w->verify && !w->writing[slot] && worker_verify_read(w, slot))
			continue;
		iv->rec.ops++;
		iv->rec.reads += !w->writing[slot];
		lag = w->submitted[slot] - w->intended[slot];
		worker_health(
		    &iv->rec, lag - w->slot_wait[slot], w->slot_wait[slot],
		    w->done[i].done_ns && now > w->done[i].done_ns ? now - w->done[i].done_ns : 0);
		iv->rec.lag_sum_ns += lag;
		if (lag > iv->rec.lag_max_ns)
			iv->rec.lag_max_ns = lag;
		iv->rec.bytes += bs;
		lat = at > w->intended[slot] ? at - w->intended[slot] : 0;
		hist_record(&iv->rec.latency, lat);
		/* a sized queue full: every slot held by what the storage had not answered */
		svc = w->done[i].start_ns ? at - w->done[i].start_ns
		                          : at - w->submitted[slot] +
		                                (w->cfg->queue_sized ? w->slot_wait[slot] : 0);
		hist_record(&iv->rec.service, svc);
		/* Read and write apart: one more histogram add per operation, in its kind's. */
		if (w->writing[slot]) {
			hist_record(&iv->rec.write_latency, lat);
		} else {
			iv->rec.read_bytes += bs;
			hist_record(&iv->rec.read_latency, lat);
		}
		/* A mix's part: its own count, bytes and latency (one more add per operation). */
		if (w->nparts > 0) {
			struct record_part *pt = &iv->rec.parts[w->part[slot]];

			pt->ops++;
			pt->reads += !w->writing[slot];
			pt->bytes += bs;
			hist_record(&pt->latency, lat);
			hist_record(&pt->service, svc);
		}
	}
	return data;
}

/*
 * The step is over: what was due and never issued is missed and charged at
 * (end - due); returns the backlog so counted.
 */
static uint64_t worker_end_missed(struct worker *w, uint64_t next, uint64_t end)
{
	uint64_t missed = 0;

	for (; next < end; next = worker_next_due(w)) {
		worker_charge(w, end - next);
		missed++;
	}
	return missed;
}

/* The wait for the step's last operations ended at now: what is still in flight is charged. */
static void worker_end_inflight(struct worker *w, uint64_t now)
{
	/* In flight: every slot not on the free list (found once here, not kept per operation). */
	bool *free_slot = xcalloc(w->cfg->io.queue_depth, sizeof(*free_slot));

	for (uint32_t i = 0; i < w->nfree; i++)
		free_slot[w->free_slots[i]] = true;
	for (uint32_t slot = 0; slot < w->cfg->io.queue_depth; slot++)
		if (!free_slot[slot] && !w->syncing[slot] && now > w->intended[slot])
			worker_charge(w, now - w->intended[slot]);
	free(free_slot);
}

/* Fixed work whose operations are all issued: nothing more falls due, none is missed. */
static inline bool worker_work_out(const struct worker_work *k)
{
	return k->ops != 0 && k->issued >= k->ops;
}

/* Whether work allows another issue now (closed loop: *intended is when the slot may). */
static bool worker_work_slot(struct worker_work *k, uint32_t inflight, uint32_t qd, bool closed,
                             uint64_t now, uint64_t *intended)
{
	if (k->ops == 0)
		return true;
	if (k->issued >= k->ops)
		return false;
	if (!closed || k->nthink == 0 || inflight + k->nthink < qd)
		return true;
	if (k->think[k->head] > now)
		return false;
	*intended = k->think[k->head];
	k->head = (k->head + 1) % qd;
	k->nthink--;
	return true;
}

/* A batch of n completions: counted, and with think time their slots wait before reissue. */
static void worker_work_done(struct worker *w, struct worker_work *k, int n, uint64_t now)
{
	uint32_t qd = w->cfg->io.queue_depth;

	if (k->ops == 0)
		return;
	for (int i = 0; i < n; i++) {
		uint64_t at = w->done[i].done_ns ? w->done[i].done_ns : now;

		if (at > k->last_done)
			k->last_done = at;
		if (k->think_ns > 0 && k->nthink < qd)
			k->think[(k->head + k->nthink++) % qd] = at + k->think_ns;
	}
	k->completed += (uint64_t)n;
	w->work_done = k->completed;
	if (k->completed >= k->ops && w->work_done_ns == 0)
		w->work_done_ns = k->last_done > k->start ? k->last_done - k->start : 1;
}

/*
 * One step. Operation k is due at start + k/rate; when the queue is full it waits
 * for a slot and keeps its intended time, so the wait shows in its latency. The
 * worker sleeps in the ring until the next due operation (precise timing: within
 * its lateness budget, spinning only where the budget is tighter than a wake-up's
 * lateness; see pacer.h), the next interval boundary, a completion or a wake;
 * every operation due by then is queued and goes out in one submission. One clock
 * read per wake stamps the batch reaped, one more the batch submitted. Each
 * interval's `missed` is the backlog at its end (due, not issued). At the step's
 * end the backlog is charged, and the operations in flight are waited for (up to
 * WORKER_DRAIN_MAX_NS) and counted in the last interval.
 *
 * worker_step_begin starts it; then, as long as it is not done, worker_step_pre
 * issues what is due and says how long the stream may wait, the ring waits (for
 * every stream of the process: the shortest of their waits), and worker_step_post
 * takes the stream's completions and the time.
 */
void worker_step_begin(struct worker *w, struct worker_run *r, const struct worker_step *s)
{
	const uint64_t start = s->start_ns + (s->work_ops ? s->start_off_ns : 0);
	uint64_t now;

	memset(r, 0, sizeof(*r));
	r->s = *s;
	r->qd = w->cfg->io.queue_depth;
	r->closed = !(s->rate > 0);
	r->end = s->start_ns + (uint64_t)s->nintervals * s->interval_ns;
	r->boundary = s->start_ns + s->interval_ns;
	/* fixed work: this worker's own start, spread over the fleet */
	r->start = start;
	r->k = (struct worker_work){.ops = s->work_ops, .start = start, .think_ns = s->think_ns};
	r->next = start;
	r->over = s->nintervals == 0;
	w->work_done = w->work_done_ns = 0;
	/* each step counts its own writes to N: a sync due at the last one's end never went */
	w->writes_issued = 0;
	w->sync_due = false;
	if (r->k.ops && r->k.think_ns)
		r->k.think = xcalloc(r->qd, sizeof(*r->k.think));
	if (!r->closed && w->cfg->replay != NULL) {
		/*
		 * The speed: this worker's rate over its share of the trace's x1 rate (the
		 * coordinator splits a step's rate evenly over the fleet's workers).
		 */
		uint32_t fleet = w->cfg->phase_total ? w->cfg->phase_total : w->cfg->io.workers;

		replay_src_start(&w->rp, start, s->rate * fleet / w->cfg->replay->rate);
		r->next = replay_next(&w->rp);
	} else if (!r->closed) {
		arrivals_init(&w->arr, w->cfg->io.poisson ? ARRIVALS_POISSON : ARRIVALS_UNIFORM,
		              s->rate, start, w->cfg->seed ^ s->gen);
		if (w->cfg->phase_total > 1)
			arrivals_set_phase(&w->arr, (double)(w->cfg->phase_base + w->cfg->index) /
			                                (double)w->cfg->phase_total);
		r->next = arrivals_next(&w->arr);
	}
	worker_target_check(w, true);
	worker_cpu(w, &w->cpu_user_ns, &w->cpu_sys_ns, &w->nivcsw);
	worker_interval_begin(w, s->gen, 0);
	now = clock_now_ns();
	schedwait_mark(&w->sched, now);
	r->done = r->over && r->inflight == 0;
}

/* Issue what is due at now; how long the stream may wait (ENGINE_WAIT_EVER: for I/O only). */
uint64_t worker_step_pre(struct worker *w, struct worker_run *r, uint64_t now)
{
	const uint32_t qd = r->qd;
	const bool closed = r->closed;
	struct worker_work *k = &r->k;
	uint64_t wait_ns = ENGINE_WAIT_EVER;

	if (!r->over && !r->draining && worker_deadman(w, now)) {
		r->done = true; /* closing the ring drains what is in flight */
		return ENGINE_NO_WAIT;
	}
	if (r->draining) {
		w->pace.target_ns = 0;
		wait_ns = r->drain_until > now ? r->drain_until - now : ENGINE_NO_WAIT;
	} else if (!r->over) {
		uint64_t until = r->boundary;
		bool issue = false;

		while (r->inflight < qd) {
			uint64_t intended = closed ? now : r->next;

			if (w->sync_due) {
				/* the next operation, once the writes before it are done */
				if (w->writes_inflight > 0 || now >= r->end)
					break;
				worker_issue_sync(w, now);
				r->inflight++;
				continue;
			}
			if (closed && (now < r->start || now >= r->end))
				break;
			if (!closed && (r->next > now || r->next >= r->end))
				break;
			if (!worker_work_slot(k, r->inflight, qd, closed, now, &intended))
				break;
			worker_issue(w, intended, now);
			r->inflight++;
			k->issued++;
			if (!closed)
				r->next = worker_next_due(w);
		}
		if (worker_work_out(k)) {
			/* its work is all out: only the interval boundaries wake it */
		} else if (r->inflight < qd && closed && now < r->start && r->start < until) {
			until = r->start;
		} else if (r->inflight < qd && closed && k->nthink > 0 &&
		           r->inflight + k->nthink >= qd && k->think[k->head] < until) {
			until = k->think[k->head];
			issue = true;
		}
		if (r->inflight < qd && !closed && r->next < r->end && r->next < until &&
		    !worker_work_out(k) && !w->sync_due) {
			until = r->next;
			issue = true;
		}
		wait_ns = pacer_wait(&w->pace, now, until, issue);
	} else if (w->stop) {
		r->done = true; /* closing the ring reaps what is left */
		return ENGINE_NO_WAIT;
	}
	r->full_since = r->inflight == qd && !r->over && !r->draining ? now : 0;
	if (!r->full_since)
		w->full_at = 0;
	else if (w->full_at == 0)
		w->full_at = now;
	if (!r->over)
		wait_ns = worker_deadman_wait(w, wait_ns);
	return wait_ns;
}

/*
 * The wait ended at now with the stream's n completions in w->done (timed_out: the
 * process's wait ran out, with no completion and no wake for any stream).
 */
void worker_step_post(struct worker *w, struct worker_run *r, int n, bool woken, bool timed_out,
                      uint64_t now)
{
	const struct worker_step *s = &r->s;
	bool crossed = false;
	int data;

	pacer_woke(&w->pace, now, timed_out);
	/* Time spent with the queue full: the client, not the storage, set the pace. */
	if (r->full_since)
		w->cur->rec.qd_full_ns += now - r->full_since;
	if (r->full_since && n > 0)
		worker_slot_freed(w, n, now);
	/* Close the intervals that ended first: a completion counts where it landed. */
	while (!r->over && !r->draining && now >= r->boundary) {
		if (r->index + 1 == s->nintervals) {
			if (!r->closed && !worker_work_out(&r->k))
				w->cur->rec.missed = worker_end_missed(w, r->next, r->end);
			r->draining = true;
			r->drain_until = now + WORKER_DRAIN_MAX_NS;
			break;
		}
		if (!r->closed && !worker_work_out(&r->k))
			w->cur->rec.missed = worker_backlog(w, r->next, r->boundary);
		worker_publish(w);
		crossed = true;
		worker_interval_begin(w, s->gen, ++r->index);
		r->boundary += s->interval_ns;
	}
	if (crossed)
		worker_target_check(w, false);
	if (!r->over)
		w->cur->rec.wakes++;
	data = worker_reap(w, n, now, !r->over);
	if (!r->over)
		worker_work_done(w, &r->k, data, now);
	r->inflight -= (uint32_t)n;
	if (r->draining && (r->inflight == 0 || now >= r->drain_until || w->stop)) {
		worker_end_inflight(w, now);
		if (w->files)
			worker_files_put_back(w);
		worker_dump_flush(w); /* before the last interval: a reader may look then */
		worker_publish(w);
		r->draining = false;
		r->over = true;
	}
	if ((woken || crossed) && !r->over && !r->draining && worker_step_changed(w, s->gen)) {
		/* Ended early (EndStep, stop): its backlog is charged like any step end's. */
		if (!r->closed && !worker_work_out(&r->k))
			w->cur->rec.missed =
			    worker_end_missed(w, r->next, now < r->end ? now : r->end);
		r->over = true;
	} else if (woken && (r->over || r->draining) && !w->stop)
		worker_step_changed(w, s->gen);
	if (r->over && r->inflight == 0)
		r->done = true;
}

void worker_step_end(struct worker *w, struct worker_run *r)
{
	worker_dump_flush(w);
	free(r->k.think);
	r->k.think = NULL;
}
