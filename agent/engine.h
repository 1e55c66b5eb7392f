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
 * worker owns scheduling (when an operation should start), the data written
 * and measurement (it keeps intended and submission times per slot itself).
 */
struct engine;

struct engine_io {
	uint64_t offset;
	uint32_t len;
	bool write;
	uint16_t slot; /* buffer / in-flight slot, < queue_depth */
};

struct engine_completion {
	uint16_t slot;
	int32_t res; /* bytes moved, or -errno */
};

/* submit_and_wait timeouts: do not sleep at all, or sleep until a completion or a wake. */
#define ENGINE_NO_WAIT   0
#define ENGINE_WAIT_EVER UINT64_MAX

struct engine_ops {
	const char *name;
	/*
	 * Do I/O on fd (open, laid out; it stays the caller's to close) through
	 * queue_depth slots of block_size bytes. wake_fd is an eventfd whose writes
	 * must end a sleep.
	 */
	struct engine *(*open)(int fd, uint32_t queue_depth, uint32_t block_size, int wake_fd,
	                       struct error *err);
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
};

static inline struct engine *engine_open(const struct engine_ops *ops, int fd, uint32_t queue_depth,
                                         uint32_t block_size, int wake_fd, struct error *err)
{
	return ops->open(fd, queue_depth, block_size, wake_fd, err);
}

extern const struct engine_ops engine_uring_ops;

#endif
