/* SPDX-License-Identifier: MIT */
/* A workload's load: explicit steps, a curve of shares of the peak, or a ramp; refinement. */
#ifndef IOCURVE_LOADSPEC_H
#define IOCURVE_LOADSPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "yamlnode.h"

#define LOADSPEC_MAX_STEPS      1000 /* entries in steps: or curve: */
#define LOADSPEC_MAX_RAMP_STEPS 1000
#define LOADSPEC_MAX_REFINE     20
/* The confirmation step run at most this many times (load.repeat). */
#define LOADSPEC_MAX_REPEAT 20

/*
 * Read load: into w's mode, steps and ramp fields. w->block_size must be
 * final: a bandwidth (800MiB/s) becomes ops/s through it. what names the
 * mapping in messages ("load of workload 'a'"). On error w->steps may hold
 * an allocation the caller frees with the workload.
 */
int loadspec_parse(struct yamlnode_doc *y, const yaml_node_t *load, const char *what,
                   struct workload *w);
/*
 * The same for a load: given at the top level: a plain rate there is ops/s,
 * which a sequential workload (judged in MiB/s) would silently turn into a
 * bandwidth of its own block size, so it is refused for one, naming the
 * workload and the bandwidth it would have meant.
 */
int loadspec_parse_inherited(struct yamlnode_doc *y, const yaml_node_t *load, const char *what,
                             const char *workload, struct workload *w);

/* A max step runs first: a curve, or steps with a share of the peak among them. */
bool loadspec_needs_peak(const struct workload *w);

/*
 * The most steps w can run: its steps or curve (plus the max step that finds
 * the peak), or ramp.max_steps; plus refine. A ramp usually stops sooner.
 */
size_t loadspec_max_steps(const struct workload *w);

#endif
