/* SPDX-License-Identifier: MIT */
/* One interval's measurements: what a worker publishes, an agent merges and the coordinator keeps.
 */
#ifndef IOCURVE_RECORD_H
#define IOCURVE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "error.h"
#include "hist.h"

/* A target's path as an interval record keeps it (longer ones are cut). */
#define RECORD_PATH_MAX 128
/*
 * Why an operation failed when no errno says it ("short read: file truncated to N bytes"),
 * long enough for a data mismatch's words, which name the path (agent/verify.h).
 */
#define RECORD_CAUSE_MAX 256
/* The name of the device whose kernel counters a record carries (kernel_dev). */
#define RECORD_DEV_MAX 48
/*
 * What one record may hold (record_check): an interval's operations (a trillion),
 * nanoseconds summed over its operations or workers (36 years) and bytes (1 EiB).
 * Far above any device, far enough below 2^63 that a fleet's sums stay exact in
 * intervals.jsonl (record_merge stops at the bound rather than wrap).
 */
#define RECORD_COUNT_MAX (UINT64_C(1) << 40)
#define RECORD_NS_MAX    (UINT64_C(1) << 60)
#define RECORD_BYTES_MAX (UINT64_C(1) << 60)
/* A mix's parts a record holds (MIX_PARTS_MAX, common/mix.h) */
#define RECORD_PARTS_MAX 12
/* errno values, as Linux numbers them (MAX_ERRNO) */
#define RECORD_ERRNO_MAX 4095
/* A failure's offset in its file: a file holds at most 2^63 - 1 bytes (off_t). */
#define RECORD_OFFSET_MAX ((UINT64_C(1) << 63) - 1)

/*
 * The same record at every level: a worker fills one per interval, an agent
 * merges its workers' into one, the coordinator merges its agents'. Merging is
 * adding, so any grouping of the same operations gives the same record.
 */
/* One part of a mix in an interval: its completed operations, their bytes and latency. */
struct record_part {
	uint64_t ops;
	uint64_t reads;
	uint64_t bytes;
	uint64_t errors;     /* its operations that failed (the record's errors hold them too) */
	struct hist latency; /* from the intended start (response) */
	struct hist
	    service; /* at the storage: submission (a file operation's call) to completion */
};

struct record {
	uint64_t ops;   /* operations completed */
	uint64_t reads; /* of which reads (mixes: the rest are writes) */
	uint64_t bytes;
	uint64_t errors;
	uint64_t cpu_user_ns; /* workers' CPU time */
	uint64_t cpu_sys_ns;
	uint64_t lag_sum_ns; /* submission minus intended start: how late the client issued */
	uint64_t lag_max_ns;
	uint64_t qd_full_ns; /* time a worker had queue_depth operations in flight */
	uint64_t missed;     /* backlog at the interval's end: due, not yet issued (at the step's
	                        end: never issued); the client fell behind */
	uint64_t missed_charged; /* operations that never completed in the step, in latency at a
	                            lower bound (step end minus due time) */
	uint64_t wakes; /* submit-and-wait calls: ops / wakes is the batch (0: not counted, an
	                   agent before 0.2.0) */
	/*
	 * The client's health (0.2.0; health_n 0: not measured). Lateness is split:
	 * issue_late_ns is the client's (due, or the slot freed, to submission),
	 * slot_wait_ns the queue depth's (due to a slot freed, the storage's doing).
	 */
	uint64_t health_n;      /* worker intervals that measured these */
	uint64_t issue_late_ns; /* summed over completed ops */
	uint64_t slot_wait_ns;  /* summed over completed ops */
	uint64_t reap_delay_ns; /* summed over completed ops: completion seen late (io_uring:
	                           estimated) */
	uint64_t nivcsw;        /* workers' involuntary context switches */
	uint64_t steal_ppm;     /* the agent host's CPU steal, ppm of its CPU time (max) */
	uint64_t late_10us;     /* completed ops the client delayed (issue lateness plus */
	uint64_t late_100us;    /* reap delay) over 10 us, 100 us, 1 ms, 10 ms: the tail */
	uint64_t late_1ms;      /* of its delay, for percentile SLOs */
	uint64_t late_10ms;
	uint64_t read_bytes; /* of bytes, the reads' (with read_latency: read and write apart) */
	uint64_t mismatches; /* verify: blocks read that failed their header (each op an error) */
	/*
	 * Sync writes (CAPABILITY_SYNC): fsync or fdatasync operations completed. Not
	 * data operations: never in ops, bytes, latency or service; sync_latency holds
	 * each one's time, submission to completion, and its count is syncs.
	 */
	uint64_t syncs;
	/*
	 * The kernel's view of the targets' devices (CAPABILITY_KERNEL): the change over the
	 * interval of /sys/dev/block/MAJ:MIN/stat, read by the agent (never the workers) at
	 * the interval's end, summed over agents; kernel_n is how many devices were read
	 * (0: none, a sim target, tmpfs or an older agent). Milliseconds, as the kernel
	 * counts them. NFS: READ and WRITE RPCs of the mount's /proc/self/mountstats.
	 */
	uint64_t kernel_n;
	uint64_t kernel_reads;
	uint64_t kernel_writes;
	uint64_t kernel_io_ms;    /* summed over the completed ops */
	uint64_t kernel_busy_ms;  /* io_ticks: time with an op in flight */
	uint64_t kernel_queue_ms; /* time_in_queue: summed over the ops in flight */
	uint64_t nfs_ops;
	uint64_t nfs_rtt_ms;
	uint64_t nfs_exec_ms;
	/*
	 * The interval's first failed operation (merging keeps the first one's), kept
	 * when it has an errno or a cause (record_err_kept): a short transfer or a
	 * target found deleted, truncated or replaced has no errno but a cause.
	 */
	int32_t err_errno; /* 0: none (see err_cause) */
	uint32_t err_pad;
	uint64_t err_offset;              /* its offset in the target */
	char err_path[RECORD_PATH_MAX];   /* its target */
	char err_cause[RECORD_CAUSE_MAX]; /* why, in words, when no errno says it ("": none) */
	/*
	 * The device the kernel counters are of ("vda", "loop3", "nfs srv:/export"; "": none);
	 * merged over agents that read different ones, the first with " +" after it.
	 */
	char kernel_dev[RECORD_DEV_MAX];
	struct hist latency; /* completion minus intended start (plus missed_charged bounds) */
	struct hist service; /* completion minus submission: what the storage took */
	/*
	 * Read and write apart (after 0.2.0, CAPABILITY_KINDS): the latency of the completed
	 * reads and of the completed writes, so that each kind's percentiles are exact.
	 * Measured when their counts are reads and ops - reads (record_kinds_known);
	 * both empty: not measured (an older agent). Never-completed operations
	 * (missed_charged) have no kind yet: they are in latency only.
	 */
	struct hist read_latency;
	struct hist write_latency;
	struct hist sync_latency;
	/*
	 * A mix's parts (CAPABILITY_MIX), in the plan's order; nparts 0: a plain workload.
	 * Each part is a histogram (~37 KB), so they are allocated only for a record that
	 * has parts (record_parts_use): a plain workload's record carries one pointer, not
	 * ~300 KB of parts it never uses. The array belongs to the record: record_release
	 * frees it, record_reset empties and keeps it for the record's next use (parts_cap
	 * of them, each empty past nparts), record_copy and record_merge give dst its own.
	 * Every completed operation is in exactly one part (record_check_parts).
	 */
	uint32_t nparts;
	uint32_t parts_cap;
	struct record_part *parts; /* nparts of them; NULL when nparts is 0 */
};

struct Iocurve__IntervalReport;

/* How merging the records of several workers or agents combines a counter. */
enum record_merge_rule { RECORD_SUM, RECORD_MAX };

/*
 * One counter of struct record (a uint64_t before err_errno), described once:
 * merging, the wire (IntervalReport) and intervals.jsonl all walk this table, so
 * a new counter is its member, its row and its IntervalReport field. since and
 * dflt are intervals.jsonl's: the results format that made it required, and what
 * a line of an older format that lacks it reads as (docs/methodology.md).
 */
struct record_counter {
	const char *key; /* its JSON key and the IntervalReport field's name */
	size_t off;      /* in struct record */
	size_t wire;     /* in Iocurve__IntervalReport (a uint64) */
	enum record_merge_rule merge;
	int since;
	uint64_t dflt;
	uint64_t max; /* the largest value record_check accepts */
};
extern const struct record_counter record_counters[];
extern const size_t record_ncounters;

/* Counter c of r. */
static inline uint64_t *record_at(struct record *r, const struct record_counter *c)
{
	return (uint64_t *)((char *)r + c->off);
}

/*
 * A record's life: record_init readies fresh memory (malloc'd, on the stack) as a
 * record of nothing without parts (~185 KB written); record_reset empties a record
 * already made, writing only the bins it used and keeping its parts' memory for the
 * next record_parts_use, so a record used again costs what it held, not its size;
 * record_release frees what the record holds (its parts) before its memory goes. A
 * record zeroed by calloc is already initialised.
 */
void record_init(struct record *r);
void record_reset(struct record *r);
void record_release(struct record *r);
/* dst (initialised) becomes src, with its own copy of src's parts. */
void record_copy(struct record *dst, const struct record *src);
/* Give r n parts (at most RECORD_PARTS_MAX; never fewer than it has), the new ones empty. */
void record_parts_use(struct record *r, uint32_t n);
/*
 * A record with parts must have every completed operation in one part: the parts'
 * ops, reads and bytes add up to the record's and each part's latency count is its
 * ops. 0, or -1 with err naming the breach.
 */
int record_check_parts(const struct record *rec, struct error *err);
/*
 * The record's part of an IntervalReport, both ways, in one place: a new field
 * is added here once. record_encode allocates the histograms' bins inside r
 * (free with record_encoded_free). record_decode validates what it reads
 * (histograms, reads <= ops, one latency per op or charge; with read_latency and
 * write_latency, one of them per completed op: record_check_kinds) and names the
 * interval in err.
 */
void record_encode(const struct record *rec, struct Iocurve__IntervalReport *r);
void record_encoded_free(struct Iocurve__IntervalReport *r);
int record_decode(struct record *rec, const struct Iocurve__IntervalReport *r, struct error *err);
/*
 * What any whole record holds to (also record_decode), the first breach named
 * with its field and value: each counter within its row's max, err_errno in
 * [0, RECORD_ERRNO_MAX], reads <= ops, one latency per op and per missed_charged,
 * at most one service time per op, lag_sum_ns <= ops x lag_max_ns, and
 * ops >= late_10us >= late_100us >= late_1ms >= late_10ms; and apart: read_bytes <=
 * bytes, read_latency's count <= reads, write_latency's <= ops - reads, read_bytes 0
 * when no read is measured apart.
 */
int record_check(const struct record *rec, struct error *err);
void record_merge(struct record *dst, const struct record *src);
/*
 * Whether record_merge(dst, src) stays within every bound: each summed counter at
 * most its max, each histogram's count and sum at most HIST_COUNT_MAX and
 * HIST_SUM_MAX. When it does, two records that pass record_check merge into one that
 * does too; a sum stopped at its bound (record_merge's saturation) would not, since it
 * breaks the relations between counters (one latency per op, lag_sum_ns within ops x
 * lag_max_ns). Otherwise err names the first counter that would pass its bound.
 */
int record_merge_fits(const struct record *dst, const struct record *src, struct error *err);
/*
 * Note a failed operation: counted, and the interval's first kept with its
 * errno (> 0, or 0), offset, target (path may be NULL) and cause (may be NULL;
 * with errno 0 and no cause it reads "short transfer"), so that a failure
 * without an errno still names where and why.
 */
void record_error(struct record *r, int errnum, uint64_t offset, const char *path,
                  const char *cause);
/*
 * Whether the record has read and write apart: every completed operation is in
 * read_latency or write_latency (a record of no operations has them, trivially).
 * A record of an agent without CAPABILITY_KINDS, or merged with one, has not.
 */
static inline bool record_kinds_known(const struct record *r)
{
	return r->read_latency.count == r->reads && r->write_latency.count == r->ops - r->reads;
}
/*
 * A single agent's record that says it has the kinds (CAPABILITY_KINDS) must
 * have them for every operation: 0, or -1 with err naming the breach.
 */
int record_check_kinds(const struct record *rec, struct error *err);
/* Forget the kinds (an agent whose capabilities lack CAPABILITY_KINDS): not measured. */
void record_drop_kinds(struct record *r);

/* The record holds its first failure's details (an errno or a cause). */
static inline bool record_err_kept(const struct record *r)
{
	return r->err_errno != 0 || r->err_cause[0] != '\0';
}
/*
 * Whether a cause names its block and file itself (verify's "data mismatch at offset N
 * of PATH (...)"), so the words that show it add no " on PATH".
 */
static inline bool record_err_names_path(const char *cause)
{
	return strncmp(cause, "data mismatch at offset ", 24) == 0;
}
/*
 * A failure in words: its cause, with the errno's name after it when both are
 * known ("short read: file truncated to 4096 bytes", "EIO", "file deleted (EIO)");
 * "error" when neither is.
 */
void record_err_words(int32_t errnum, const char *cause, char *buf, size_t len);
/*
 * kernel_dev's merge (dst and src RECORD_DEV_MAX long): src when dst is empty; dst with
 * " +" after it when src names another device.
 */
void record_merge_dev(char *dst, const char *src);

#endif
