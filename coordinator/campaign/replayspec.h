/* SPDX-License-Identifier: MIT */
/* A workload's replay: {file, format, rate}: its trace read, its speeds made rates. */
#ifndef IOCURVE_REPLAYSPEC_H
#define IOCURVE_REPLAYSPEC_H

#include "campaign.h"
#include "yamlnode.h"

/*
 * Read map's replay: (a workload's mapping) into w once its load is read: the trace
 * (trace.h; a relative file is found beside the campaign file; in a campaign read from
 * a results directory, the copy the run kept there, REPLAYSPEC_COPY), its
 * speeds (load.speeds, kept in w->steps, or a ramp of them in w->ramp_*) turned into
 * ops/s, and the settings the trace
 * decides: block_size its largest operation, rw randrw when it writes (randread when
 * not), read_pct its share of reads. A replay without speeds, speeds without a replay,
 * fixed work with one, or a trace that does not read are refused at the key
 * ("FILE:L:C: replay.file: TRACE:LINE: ..."). Returns 0 or -1.
 */
int replayspec_parse(struct yamlnode_doc *y, const yaml_node_t *map, const yaml_node_t *load,
                     const struct campaign *c, struct workload *w);
/*
 * The name of the copy of workload NAME's trace a results directory keeps beside
 * plan.yaml: `report` and `resume` read it, never the file the campaign named
 * (moved, changed, or on another machine by then).
 */
#define REPLAYSPEC_COPY "trace-%s.iolog"

#endif
