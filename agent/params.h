/* SPDX-License-Identifier: MIT */
/* The coordinator's Prepare as the worker pool's parameters: the one place it is read. */
#ifndef IOCURVE_PARAMS_H
#define IOCURVE_PARAMS_H

#include <stdint.h>

#include "iocurve.pb-c.h"
#include "pool.h"

/*
 * The default cap on a workload's workers, per CPU: they are streams, driven by one
 * process per CPU, so the cap is on what the slots and files cost, not on processes.
 */
#define PARAMS_WORKERS_PER_CPU 32

/*
 * The agent's own limits, whatever a plan asks (--max-workers, --max-queue-depth,
 * --max-block-size, --max-file-size, --max-files, --max-depth); params_caps_default fills
 * the defaults: 4 workers per CPU (64 when the count is unknown), queue depth 1024, blocks
 * of 16 MiB, files (and a worker's file set) of 1 TiB, a million files of file sets, sets
 * 4 deep.
 */
struct params_caps {
	uint32_t workers;
	uint32_t queue_depth;
	uint32_t block_size;
	uint64_t file_size;
	uint64_t files; /* a file workload's files on this agent (its workers' sets together) */
	uint32_t depth; /* a file set's depth */
};

void params_caps_default(struct params_caps *caps);

/*
 * The agent's bounds on the fields no setting row holds (common/setting.h has the rest:
 * one limit per setting, which the campaign's parser uses too).
 */
#define PARAMS_MAX_WORKLOAD_NAME 256
#define PARAMS_MAX_FLEET_WORKERS (1u << 24)
#define PARAMS_MAX_SIM_SERVERS   1024 /* the campaign's sim.servers */
/* a wait the plan sets (a lateness budget, a simulated service time or stall): 1 h */
#define PARAMS_MAX_WAIT_NS (3600ull * 1000 * 1000 * 1000)
/* a step starts at most this far from now, either way (the coordinator leads by ~0.1 s) */
#define PARAMS_MAX_LEAD_NS (60ull * 1000 * 1000 * 1000)
/* fixed work's operations per worker: counts the reports carry exactly (2^53) */
#define PARAMS_MAX_WORK_OPS (1ull << 53)
/* ops/s of one worker: beyond any device, and finite */
#define PARAMS_MAX_WORKER_RATE 1e9

/*
 * Check p and fill plan (its settings through their rows, common/setting.h; and *sim
 * when p carries a simulated device, plan->sim then pointing at it). plan->dir,
 * target_fd and device are left for the target check. file_prefix names the
 * worker files (the agent's name). A field over caps is refused: "workload W: workers 100 is over
 * this agent's cap of 64 (--max-workers)". Returns 0, or -1 with err naming what is
 * invalid.
 */
int params_from_prepare(const Iocurve__Prepare *p, const char *file_prefix,
                        const struct params_caps *caps, struct io_plan *plan,
                        struct engine_sim_params *sim, struct error *err);

/*
 * The plan against its target, once the target's size is known (a device's: device_size;
 * 0 for a directory): the working set within file_size (else the workers would write past
 * the file's end, past --max-file-size and the free space checked), one block within it,
 * file_size within the device. Returns 0, or -1 with err naming the field and its bound.
 */
int params_check_target(const struct io_plan *plan, uint64_t device_size, struct error *err);

/*
 * A StartStep's fields against their bounds, for a pool of nworkers: interval_ns
 * within SETTING_MIN_INTERVAL_NS..SETTING_MAX_INTERVAL_NS, warm-up and measure whole
 * intervals, at most SETTING_MAX_STEP_INTERVALS of them; one finite rate per worker;
 * the start (start_ns, on this host's clock) within PARAMS_MAX_LEAD_NS of now_ns; work_ops
 * at most PARAMS_MAX_WORK_OPS; think time and each worker's start within the step.
 * workload_index is the prepared workload's (plan.c); step is only echoed. Returns 0, or -1 with
 * err naming the field and its bound.
 */
int params_check_step(const Iocurve__StartStep *s, uint32_t nworkers, uint64_t now_ns,
                      uint64_t start_ns, struct error *err);

#endif
