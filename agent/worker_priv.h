/* SPDX-License-Identifier: MIT */
/*
 * A worker's insides, shared by its files: worker.c runs a step of one stream (issue,
 * reap, publish), worker_setup.c opens and lays out what a stream needs, and
 * worker_streams.c drives a process's streams from one ring.
 */
#ifndef IOCURVE_WORKER_PRIV_H
#define IOCURVE_WORKER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "datagen.h"
#include "engine.h"
#include "fset.h"
#include "pacer.h"
#include "pattern.h"
#include "record.h"
#include "replay.h"
#include "schedwait.h"
#include "shm.h"
#include "verify.h"
#include "worker.h"

/* A consistent copy of the step block: the agent may rewrite it at any time. */
struct worker_step {
	uint64_t gen;
	uint64_t start_ns;
	uint64_t interval_ns;
	uint32_t nintervals;
	bool stop;
	double rate;
	uint64_t work_ops; /* fixed work: stop after this many operations (0: a timed step) */
	uint64_t think_ns;
	uint64_t start_off_ns; /* fixed work: this worker's start after start_ns */
};

/*
 * One stream of operations: a mix's part, or the whole of a plain workload. Each
 * keeps its own pattern (a sequential part its own cursor) and its own sizes,
 * taken in turn by smooth weighted round-robin (mix_pick).
 */
struct worker_stream {
	struct pattern pat;
	uint32_t nsizes; /* 0: every operation is pat's block_size */
	uint32_t size[MIX_SIZES_MAX];
	uint32_t weight[MIX_SIZES_MAX];
	int32_t credit[MIX_SIZES_MAX];
	enum fileop op; /* a file operation on the worker's file set (FILEOP_NONE: rw) */
};

struct worker {
	const struct io_plan *cfg;
	const struct engine_ops *ops;
	struct engine *eng;
	int fd;
	const char *nfs_path; /* an NFS target: the file (or set) within the export */
	uint64_t *intended;   /* per slot: when the schedule wanted it to start */
	uint64_t *submitted;  /* per slot: when it went to the kernel */
	/*
	 * Slots queued since the last submission: stamped with one clock read just before
	 * it, so the storage's latency holds no reap or issue work of the client's.
	 */
	uint16_t *queued;
	uint32_t nqueued;
	uint64_t *slot_wait; /* per slot: of its lag, the wait for a free slot */
	/*
	 * The last time a full queue freed a slot (the device's own time when the engine
	 * knows it), and since when that queue had been full: an operation due before it
	 * filled was the client's backlog (its lateness), and one due after it waits for a
	 * slot from when it was due or from when the last of that backlog got its slot.
	 */
	uint64_t slot_freed;
	uint64_t slot_full_at;
	uint64_t backlog_out;
	uint64_t full_at; /* the queue is full since (0: it is not) */
	bool *writing;    /* per slot: the operation writes */
	bool *syncing;    /* per slot: a sync (fsync, fdatasync), not a data operation */
	uint64_t *offset; /* per slot: where, for an error's report */
	uint16_t *free_slots;
	uint32_t nfree;
	struct engine_completion *done;
	/* offsets, read/write and sizes; a sequential walk carries across steps */
	struct worker_stream stream[MIX_PARTS_MAX];
	uint32_t nstreams;             /* 1 for a plain workload */
	uint32_t nparts;               /* a mix's parts, each counted apart (0: none) */
	uint32_t share[MIX_PARTS_MAX]; /* the parts' shares, interleaved by mix_pick */
	int32_t credit[MIX_PARTS_MAX];
	uint8_t *part;            /* per slot: its stream */
	uint32_t *len;            /* per slot: its operation's bytes (a mix's or replay's vary) */
	struct datagen *data;     /* written data; NULL when the workload never writes */
	struct arrivals arr;      /* intended start times of the step in progress */
	struct replay_src rp;     /* a replay: its operations and their times, not arr and pat */
	struct pacer pace;        /* when to sleep and when to spin */
	struct shm_interval *cur; /* the interval being recorded, copied out when it ends */
	uint64_t cpu_user_ns;     /* process CPU at the start of the current interval */
	uint64_t cpu_sys_ns;
	uint64_t nivcsw; /* involuntary context switches at the start of the current interval */
	/*
	 * Its wait for a CPU (schedwait.h): where the engine does not say when an
	 * operation completed (io_uring; the sim does), the reap delay it implies is
	 * the interval's estimate, in the measured one's place.
	 */
	struct schedwait sched;
	uint64_t gen_seen;
	uint64_t silent_ns; /* the dead-man tripped: the agent was silent this long */
	/*
	 * A file target as laid out (dev, ino), checked at step starts and interval
	 * boundaries (never per operation); lost: why it no longer is what the plan
	 * says ("file deleted"): every operation from then on fails with these words.
	 */
	bool file;
	dev_t dev;
	ino_t ino;
	char lost[RECORD_CAUSE_MAX];
	bool stop;
	int dump_fd; /* test hook (WORKER_TEST_INTENDED_ENV): intended times; -1: off */
	char dump_buf[4096];
	size_t dump_len;
	/*
	 * Sync writes (fsync or fdatasync: N, fio's meaning): after every sync_every-th write
	 * issued in a step a sync is due; it goes out as the next operation once every
	 * write issued before it has completed (writes_inflight 0), so it syncs them,
	 * and nothing else is issued meanwhile (it is the next operation, as in fio).
	 */
	uint32_t sync_every; /* 0: no syncs */
	enum engine_sync sync_kind;
	uint64_t writes_issued; /* in this step */
	uint32_t writes_inflight;
	bool sync_due;
	uint64_t sync_due_ns;
	/* Fixed work: how far this worker got in the step, which each interval carries. */
	uint64_t work_done;
	uint64_t work_done_ns;
	/* verify: every write stamps its blocks, every read checks them (agent/verify.h) */
	bool verify;
	enum verify_sum sum;   /* the checksum its writes stamp (a read checks the header's) */
	uint64_t realtime_off; /* CLOCK_REALTIME - CLOCK_MONOTONIC: a write's generation */
	char agent[64];        /* the agent a mismatch names: AGENT of DIR/AGENT-wN.dat */
	/*
	 * The process's streams share one engine (worker_run_streams): this one's slots are
	 * slot_base.. slot_base + queue_depth - 1 of it, its file the ring's file_index; the
	 * process's CPU is split nshare ways.
	 */
	uint32_t slot_base;
	uint16_t file_index;
	uint32_t nshare;
	/*
	 * A file workload: the worker's file set, and per slot the operation in flight, what
	 * it works on and its paths (the engine reads them until it completes).
	 */
	bool files;
	struct fset fs;
	uint8_t *fop;
	struct fset_pick *pick;
	char (*path)[FSET_PATH_MAX];
	char (*path2)[FSET_PATH_MAX];
};

/*
 * Fixed work's part of a step: the operations issued and completed of work_ops,
 * and, closed loop with think time, the slots waiting out their think time (a
 * ring of the times they may issue again, in completion order).
 */
struct worker_work {
	uint64_t ops; /* 0: a timed step */
	uint64_t issued, completed;
	uint64_t start;     /* this worker's own start */
	uint64_t last_done; /* its latest completion */
	uint64_t think_ns;
	uint64_t *think; /* queue_depth entries */
	uint32_t head, nthink;
};

/*
 * A step in progress on one stream: what worker_step_run kept in its locals, so that
 * several streams of one process can share a ring and its waits (worker_run_streams).
 */
struct worker_run {
	struct worker_step s;
	uint32_t qd;
	bool closed;
	uint64_t end, boundary, drain_until, start, next, full_since;
	struct worker_work k;
	uint32_t index, inflight;
	bool over, draining;
	bool done; /* the step is over and nothing of it is in flight, or it broke off */
};

int worker_fail(const struct io_plan *cfg, const char *msg);
/* worker_publish.c: the interval begun, the process's CPU (each stream's share), published */
void worker_interval_begin(struct worker *w, uint64_t gen, uint32_t index);
void worker_cpu(const struct worker *w, uint64_t *user_ns, uint64_t *sys_ns, uint64_t *nivcsw);
void worker_publish(struct worker *w);
/* worker_target.c: the target checked, a step's file set put back, causes in words */
void worker_target_check(struct worker *w, bool holes);
void worker_files_put_back(struct worker *w);
void worker_short_cause(const struct worker *w, uint16_t slot, int32_t res, char *buf, size_t len);
void worker_file_cause(const struct worker *w, uint16_t slot, int32_t res, char *buf, size_t len);
void worker_notify(const struct io_plan *cfg);
int worker_reap(struct worker *w, int n, uint64_t now, bool count);
void worker_stamp_submitted(struct worker *w);
void worker_step_begin(struct worker *w, struct worker_run *r, const struct worker_step *s);
void worker_step_end(struct worker *w, struct worker_run *r);
void worker_step_load(const struct worker *w, struct worker_step *s);
void worker_step_post(struct worker *w, struct worker_run *r, int n, bool woken, bool timed_out,
                      uint64_t now);
uint64_t worker_step_pre(struct worker *w, struct worker_run *r, uint64_t now);
int worker_setup(struct worker *w, const struct io_plan *cfg, struct error *err);
void worker_teardown(struct worker *w);

#endif
