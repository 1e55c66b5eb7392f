/* SPDX-License-Identifier: MIT */
/* The coordinator's Prepare as the worker pool's parameters: the one place it is read. */
#ifndef IOCURVE_PARAMS_H
#define IOCURVE_PARAMS_H

#include <stdint.h>

#include "iocurve.pb-c.h"
#include "pool.h"

/*
 * The agent's own limits, whatever a plan asks (--max-workers, --max-queue-depth,
 * --max-block-size, --max-file-size); params_caps_default fills the defaults: 4 workers
 * per CPU (64 when the count is unknown), queue depth 1024, blocks of 16 MiB, files of
 * 1 TiB.
 */
struct params_caps {
	uint32_t workers;
	uint32_t queue_depth;
	uint32_t block_size;
	uint64_t file_size;
};

void params_caps_default(struct params_caps *caps);

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

#endif
