/* SPDX-License-Identifier: MIT */
/*
 * What a worker tells the agent through its shared slot: each interval (begun, then
 * published with the process's CPU), a failure, and the wake-up that says so.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "schedwait.h"
#include "worker_priv.h"

/* worker_copy_out copies a record's counters whole, then these histograms and its parts. */
_Static_assert(offsetof(struct record, service) ==
                       offsetof(struct record, latency) + sizeof(struct hist) &&
                   offsetof(struct record, read_latency) ==
                       offsetof(struct record, service) + sizeof(struct hist) &&
                   offsetof(struct record, write_latency) ==
                       offsetof(struct record, read_latency) + sizeof(struct hist) &&
                   offsetof(struct record, sync_latency) ==
                       offsetof(struct record, write_latency) + sizeof(struct hist) &&
                   offsetof(struct record, nparts) ==
                       offsetof(struct record, sync_latency) + sizeof(struct hist) &&
                   sizeof(struct record) == offsetof(struct record, parts) + sizeof(void *),
               "struct record: counters, then five histograms, then the parts");

void worker_notify(const struct io_plan *cfg)
{
	uint64_t one = 1;

	/* A full counter (EAGAIN) still wakes the agent; nothing else is worth reporting. */
	if (write(cfg->notify_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return;
}

int worker_fail(const struct io_plan *cfg, const char *msg)
{
	/* Long paths can outgrow the slot; a cut message still names the path first. */
	size_t len = strnlen(msg, sizeof(cfg->slot->error) - 1);

	memcpy(cfg->slot->error, msg, len);
	cfg->slot->error[len] = '\0';
	atomic_store_explicit(&cfg->slot->state, SHM_WORKER_FAILED, memory_order_release);
	worker_notify(cfg);
	return 1;
}

/* The process's CPU and preemptions, each stream's share of them (its streams split them). */
void worker_cpu(const struct worker *w, uint64_t *user_ns, uint64_t *sys_ns, uint64_t *nivcsw)
{
	struct rusage ru;
	uint64_t n = w->nshare ? w->nshare : 1;

	/* RUSAGE_SELF includes the ring's io-wq threads: their CPU is the worker's cost. */
	getrusage(RUSAGE_SELF, &ru);
	*user_ns = (uint64_t)ru.ru_utime.tv_sec * NSEC_PER_SEC +
	           (uint64_t)ru.ru_utime.tv_usec * NSEC_PER_USEC;
	*sys_ns = (uint64_t)ru.ru_stime.tv_sec * NSEC_PER_SEC +
	          (uint64_t)ru.ru_stime.tv_usec * NSEC_PER_USEC;
	*nivcsw = (uint64_t)ru.ru_nivcsw; /* preempted: the host wanted the core for another task */
	*user_ns /= n;
	*sys_ns /= n;
	*nivcsw /= n;
}

void worker_interval_begin(struct worker *w, uint64_t gen, uint32_t index)
{
	struct shm_interval *iv = w->cur;

	iv->gen = gen;
	iv->index = index;
	iv->pad = 0;
	iv->work_done = w->work_done;
	iv->work_done_ns = w->work_done_ns;
	record_reset(&iv->rec);
	record_parts_use(&iv->rec, w->nparts);
}

/*
 * The interval into its shared slot. The record's parts live on this worker's heap,
 * which the agent cannot read: they are copied to the slot's own parts in the shared
 * mapping and the slot's record points there (the same address in the agent, which
 * mapped it before forking).
 */
static void worker_copy_out(struct worker *w, struct shm_interval *dst, uint64_t slot)
{
	const struct record *rec = &w->cur->rec;
	struct record_part *parts = NULL;

	if (rec->nparts > 0) {
		parts = w->cfg->slot_parts + slot * w->nparts;
		/* counts whole, histograms by the bins in use (a part is ~74 KB) */
		for (uint32_t i = 0; i < rec->nparts; i++) {
			memcpy(&parts[i], &rec->parts[i], offsetof(struct record_part, latency));
			hist_copy_used(&parts[i].latency, &rec->parts[i].latency);
			hist_copy_used(&parts[i].service, &rec->parts[i].service);
		}
	}
	/* the counters whole, the histograms by the bins in use (a record is ~185 KB) */
	memcpy(dst, w->cur, offsetof(struct shm_interval, rec) + offsetof(struct record, latency));
	hist_copy_used(&dst->rec.latency, &rec->latency);
	hist_copy_used(&dst->rec.service, &rec->service);
	hist_copy_used(&dst->rec.read_latency, &rec->read_latency);
	hist_copy_used(&dst->rec.write_latency, &rec->write_latency);
	hist_copy_used(&dst->rec.sync_latency, &rec->sync_latency);
	dst->rec.nparts = rec->nparts;
	dst->rec.parts_cap = rec->nparts;
	dst->rec.parts = parts;
}

void worker_publish(struct worker *w)
{
	struct shm_worker *sw = w->cfg->slot;
	uint64_t seq = atomic_load_explicit(&sw->published, memory_order_relaxed);
	uint64_t user, sys, nivcsw, reap = schedwait_reap(&w->sched, clock_now_ns());

	worker_cpu(w, &user, &sys, &nivcsw);
	w->cur->work_done = w->work_done;
	w->cur->work_done_ns = w->work_done_ns;
	/* io_uring: the completions of the interval were each seen about reap ns late */
	if (w->cfg->sim == NULL)
		w->cur->rec.reap_delay_ns += reap * w->cur->rec.ops;
	w->cur->rec.cpu_user_ns = user - w->cpu_user_ns;
	w->cur->rec.cpu_sys_ns = sys - w->cpu_sys_ns;
	w->cur->rec.nivcsw = nivcsw - w->nivcsw;
	w->cur->rec.health_n = 1;
	w->cpu_user_ns = user;
	w->cpu_sys_ns = sys;
	w->nivcsw = nivcsw;
	worker_copy_out(w, &sw->slots[seq % SHM_SLOTS], seq % SHM_SLOTS);
	atomic_store_explicit(&sw->published, seq + 1, memory_order_release);
	worker_notify(w->cfg);
}
