/* SPDX-License-Identifier: MIT */
/*
 * File operations for the io_uring engine: a small pool of threads, each making one
 * operation's system calls (a create's open and close, a stat, a readdir's getdents, a
 * whole file's open, reads and close) and stamping when its first call started and its
 * last returned, so the storage's latency is the calls' and not a hand-off's. io_uring
 * sends these operations to its own worker threads anyway (statx, openat with O_CREAT,
 * unlinkat, renameat and mkdirat are never done inline), and has none for access, chmod
 * or getdents; here every kind goes one way and is measured the same. Threads start as
 * operations need them, up to the engine's queue depth (at most FPOOL_THREADS), so one
 * that blocks never holds up the next; completions wake the ring through an eventfd.
 */
#ifndef IOCURVE_FPOOL_H
#define IOCURVE_FPOOL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "error.h"

struct fpool;

/*
 * At most FPOOL_THREADS threads a pool: past them operations wait for one (the client's
 * wait, in their latency from due, not in the storage's), as a host's NFS client keeps a
 * bounded number of requests in flight.
 */
#define FPOOL_THREADS 64

/* A pool for up to max_inflight operations at once, run by up to max_threads threads. */
struct fpool *fpool_new(uint32_t max_inflight, uint32_t max_threads, struct error *err);
/* The eventfd a completion writes. */
int fpool_fd(const struct fpool *p);
/* Start io (its op, dirfd, paths, buf and len); its paths are copied. */
void fpool_submit(struct fpool *p, const struct engine_io *io, void *buf);
/* Up to max completions into done; returns their count. */
int fpool_reap(struct fpool *p, struct engine_completion *done, int max);
/* Completions wait to be reaped. */
bool fpool_ready(struct fpool *p);
/* Waits for what is in flight, then stops the threads and frees. NULL is allowed. */
void fpool_free(struct fpool *p);

#endif
