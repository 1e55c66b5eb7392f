/* SPDX-License-Identifier: MIT */
/* The I/O engine interface: a table of operations, one file per engine. */
#ifndef IOCURVE_ENGINE_H
#define IOCURVE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/*
 * The worker loop drives an engine only through this table and never asks which
 * engine it holds. An engine owns its submission ring and its buffers; the
 * worker owns scheduling (when an operation should start) and measurement.
 */
struct engine;

struct engine_io {
	uint64_t offset;
	uint32_t len;
	bool write;
	uint16_t slot;	      /* buffer / in-flight slot, < queue_depth */
	uint64_t intended_ns; /* when the schedule wanted it to start */
	uint64_t submit_ns;   /* when it was handed to the kernel */
};

struct engine_completion {
	uint16_t slot;
	int32_t res; /* bytes moved, or -errno */
};

struct engine_ops {
	const char *name;
	/* Open the target (fd already open, laid out) for queue_depth slots of block_size. */
	struct engine *(*open)(int fd, uint32_t queue_depth, uint32_t block_size, int wake_fd,
			       struct error *err);
	/* Queue one I/O; not yet submitted. */
	void (*queue)(struct engine *e, const struct engine_io *io);
	/*
	 * Submit what is queued, then wait until at least one completion, a wake on
	 * wake_fd, or the absolute CLOCK_MONOTONIC deadline (0: do not wait).
	 * Fills up to max completions; returns their count, or -errno.
	 * *woken is set when wake_fd fired.
	 */
	int (*submit_and_wait)(struct engine *e, uint64_t deadline_ns,
			       struct engine_completion *done, int max, bool *woken);
	void (*close)(struct engine *e);
};

static inline struct engine *engine_open(const struct engine_ops *ops, int fd,
					 uint32_t queue_depth, uint32_t block_size, int wake_fd,
					 struct error *err)
{
	return ops->open(fd, queue_depth, block_size, wake_fd, err);
}

extern const struct engine_ops engine_uring_ops;

#endif
