/* SPDX-License-Identifier: MIT */
/* A workload's replay: {file, format, rate}: its trace read, its speeds made rates. */
#ifndef IOCURVE_REPLAYSPEC_H
#define IOCURVE_REPLAYSPEC_H

#include "campaign.h"
#include "yamlnode.h"

/*
 * Read map's replay: (a workload's mapping) into w once its load is read: the trace
 * (trace.h; a relative file is found beside the campaign file, campaign_path), its
 * speeds (load.speeds, kept in w->steps) turned into ops/s, and the settings the trace
 * decides: block_size its largest operation, rw randrw when it writes (randread when
 * not), read_pct its share of reads. A replay without speeds, speeds without a replay,
 * fixed work with one, or a trace that does not read are refused at the key
 * ("FILE:L:C: replay.file: TRACE:LINE: ..."). Returns 0 or -1.
 */
int replayspec_parse(struct yamlnode_doc *y, const yaml_node_t *map, const yaml_node_t *load,
                     const char *campaign_path, struct workload *w);

#endif
