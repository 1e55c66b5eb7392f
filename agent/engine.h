/* SPDX-License-Identifier: MIT */
/* The I/O engine interface: a table of operations, one file per engine. */
#ifndef IOCURVE_ENGINE_H
#define IOCURVE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "fileop.h"

/*
 * The worker loop drives an engine only through this table and never asks which
 * engine it holds. An engine owns its submission ring and its buffers; the
 * worker owns scheduling (when an operation should start), the data written
 * and measurement (it keeps intended and submission times per slot itself).
 */
struct engine;
struct fset;

/* What an engine_io does beside a read or a write: sync the target (fsync, fdatasync). */
enum engine_sync { ENGINE_SYNC_NONE = 0, ENGINE_SYNC_FSYNC, ENGINE_SYNC_FDATASYNC };

struct engine_io {
	uint64_t offset;
	uint32_t len;
	bool write;
	uint16_t slot; /* buffer / in-flight slot, < queue_depth */
	uint16_t file; /* which of the engine's files (engine_params.fds); 0 with one */
	/*
	 * Not none: a sync of the whole target (offset, len and write unused), which
	 * completes with 0 or -errno. The sim serves it as a write of its device.
	 */
	enum engine_sync sync;
	/*
	 * Not none: a file operation of a file set (fset.h) on path (rename: to path2), relative
	 * to dirfd; a whole-file read or write moves len bytes of the slot's buffer from offset
	 * 0, with O_DIRECT when direct. It completes with 0 (or the bytes moved) or -errno.
	 */
	enum fileop op;
	int dirfd;
	bool direct;
	const char *path;
	const char *path2;
};

struct engine_completion {
	uint16_t slot;
	int32_t res;       /* bytes moved, or -errno */
	uint64_t done_ns;  /* when the device finished, if the engine knows (sim); 0: now */
	uint64_t start_ns; /* when the engine started it, if not when submitted (file ops); 0 */
};

/* submit_and_wait timeouts: do not sleep at all, or sleep until a completion or a wake. */
#define ENGINE_NO_WAIT   0
#define ENGINE_WAIT_EVER UINT64_MAX

/*
 * A simulated device (the sim engine): `servers` operations are served in
 * parallel, each for service_ns +- jitter_pct% (uniform), or, when exponential,
 * for an exponential time of mean service_ns (an M/M/c queue under Poisson
 * arrivals); the rest queue FIFO. Its capacity is servers / service time, so
 * tests and demos know the knee. A completion carries its simulated finish time,
 * so the worker's own wake-up lateness does not count as device time. A stall
 * of stall_ns starts when operation number stall_after_ops is submitted (0: none):
 * no operation completes during it. With rate_limit, an operation takes a token
 * of a bucket filled at rate_limit ops/s and holding ENGINE_SIM_BURST_NS of them
 * (100 ms, a throttle's slice; at least ENGINE_SIM_BURST) before it reaches the servers, waiting in
 * the device for one when the bucket is empty: a throttle, fast below its rate (a client's pause of
 * up to 100 ms, and the burst it then issues, goes through unqueued) and queueing above it.
 */
#define ENGINE_SIM_BURST    4
#define ENGINE_SIM_BURST_NS 100000000ull
struct engine_sim_params {
	uint32_t servers;
	uint64_t service_ns;
	uint32_t jitter_pct;
	bool exponential; /* service times exponential with mean service_ns; jitter unused */
	uint64_t write_service_ns; /* writes' (mean) service time; 0: service_ns */
	uint64_t stall_after_ops;
	uint64_t stall_ns;
	double rate_limit; /* ops/s of a token bucket before the servers (0: none) */
	/*
	 * Set: the servers are those of a shared device (simshare.h), not the engine's own:
	 * device share_dev, or, for a background's worker (share_spread), the foreground's
	 * devices in turn. Every worker of the agent maps it; the plan makes it.
	 */
	struct simshare *share;
	uint32_t share_dev;
	uint32_t share_own; /* share_spread: this workload's workers per agent */
	bool share_spread;
	/* a file operation's (mean) service time by kind (0: service_ns, or a write's) */
	uint64_t op_service_ns[FILEOP_COUNT];
};

/* An NFS export the engine speaks to itself (libnfs), no mount of the kernel's. */
#define ENGINE_NFS_CONN_MAX 16
struct engine_nfs_params {
	char server[256];
	char export[1024];    /* mounted */
	uint32_t version;     /* 3 or 4 */
	uint32_t connections; /* per stream, used round robin (1..ENGINE_NFS_CONN_MAX) */
	uint32_t uid, gid;    /* AUTH_SYS */
	uint64_t timeout_ns;  /* an operation unanswered this long: the engine fails */
	bool dsync;           /* sync: dsync: every write FILE_SYNC (the files opened O_SYNC) */
	/* within the export, the directory the agent's --allow names ("": the export or above
	 * it): it must exist; only what lies beneath it is made */
	char allowed[1024];
};

struct engine_params {
	int fd; /* the open, laid-out target; -1 for sim. Stays the caller's */
	/* nfds > 0: several targets in one ring instead (io_uring), each io names its file */
	const int *fds;
	uint32_t nfds;
	uint32_t queue_depth; /* slots of block_size bytes */
	uint32_t block_size;
	int wake_fd; /* eventfd whose writes must end a sleep */
	struct engine_sim_params sim;
	uint64_t seed;
	/*
	 * An engine that stamps completions with the device's own finish time (sim)
	 * may hand them over up to this late while a slot is free, so they share a
	 * wake-up with the next issue; it changes no latency. Others ignore it.
	 */
	uint64_t reap_slack_ns;
	bool files; /* file operations may be queued (io_uring: its thread pool, fpool.h) */
	/*
	 * Set: the NFS engine's export; nfs_paths[i] (nfds of them, or one) is stream i's file
	 * within it, or its file set's directory (a file operation's path is relative to it).
	 */
	const struct engine_nfs_params *nfs;
	const char *const *nfs_paths;
	struct fset *const *nfs_sets; /* files: stream i's set (its names and leaves) */
};

struct engine_ops {
	const char *name;
	struct engine *(*open)(const struct engine_params *p, struct error *err);
	/* The slot's I/O buffer (block_size bytes): the worker fills it before a write. */
	void *(*buffer)(struct engine *e, uint16_t slot);
	/* Queue one I/O; not yet submitted. At most queue_depth may be in flight. */
	void (*queue)(struct engine *e, const struct engine_io *io);
	/*
	 * Submit what is queued, then sleep until at least one completion, a write to
	 * wake_fd, or wait_ns nanoseconds from now (ENGINE_NO_WAIT, ENGINE_WAIT_EVER).
	 * The timeout is relative so the caller's one clock read per batch suffices.
	 * Fills up to max completions (the rest stay for the next call); returns their
	 * count, or -errno when the engine can no longer work. *woken is set when
	 * wake_fd fired.
	 */
	int (*submit_and_wait)(struct engine *e, uint64_t wait_ns, struct engine_completion *done,
	                       int max, bool *woken);
	/* Waits for (or cancels) what is in flight and frees everything. */
	void (*close)(struct engine *e);
	/* Optional: why submit_and_wait failed, in words naming the target (NULL: strerror). */
	const char *(*error)(struct engine *e);
};

static inline struct engine *engine_open(const struct engine_ops *ops,
                                         const struct engine_params *p, struct error *err)
{
	return ops->open(p, err);
}

extern const struct engine_ops engine_uring_ops;
extern const struct engine_ops engine_sim_ops;
extern const struct engine_ops engine_nfs_ops;

#endif
