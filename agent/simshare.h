/* SPDX-License-Identifier: MIT */
/*
 * Simulated devices shared between processes: the servers of the sim engine's devices
 * in memory every worker of the agent maps (MAP_SHARED, made before the workers are
 * forked), so a background workload's operations take the same servers as the
 * foreground's. Each device keeps, per server, when it next becomes free; an
 * operation takes the earliest free one under the device's lock, FIFO in submission
 * order as the engine's own device does. Foreground worker w uses device w; the
 * background spreads its operations over the foreground's devices in turn (over its
 * own count before any foreground was prepared), as a backup stream spreads over the
 * volumes the application uses.
 */
#ifndef IOCURVE_SIMSHARE_H
#define IOCURVE_SIMSHARE_H

#include <stdint.h>

#include "error.h"

/* Devices made: one per worker an agent may run for one workload (workers: 1..256). */
#define SIMSHARE_DEVICES 256u

struct simshare;

/* SIMSHARE_DEVICES devices of `servers` servers each, in shared memory; NULL with err. */
struct simshare *simshare_new(uint32_t servers, struct error *err);
/* Unmap (workers forked before keep their own mapping); NULL is allowed. */
void simshare_free(struct simshare *s);
uint32_t simshare_servers(const struct simshare *s);
/* The foreground now runs n workers per agent (devices 0..n-1); 0: none yet. */
void simshare_set_foreground(struct simshare *s, uint32_t n);
/* The device a background operation numbered seq goes to (own: its workers' count). */
uint32_t simshare_spread(const struct simshare *s, uint64_t seq, uint32_t own);
/*
 * One operation on device dev, ready to be served at ready_ns, served for service_ns
 * by the earliest free server: returns its completion time.
 */
uint64_t simshare_take(struct simshare *s, uint32_t dev, uint64_t ready_ns, uint64_t service_ns);

#endif
