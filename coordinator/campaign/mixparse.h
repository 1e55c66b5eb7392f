/* SPDX-License-Identifier: MIT */
/*
 * The campaign's mixes: `mix:` (parts, each a share of one stream with its own rw,
 * access, block_size and read_pct, or a file operation), read into struct mix
 * (common/mix.h) with file:line:column errors; a size distribution is sizeparse.h's.
 */
#ifndef IOCURVE_MIXPARSE_H
#define IOCURVE_MIXPARSE_H

#include "setting.h"
#include "yamlnode.h"

/* mix: [{name, share, rw, access, block_size, read_pct}, ...] into io->mix. */
int mixparse_read(struct yamlnode_doc *y, const yaml_node_t *n, struct io_settings *io);
/*
 * A workload's mix made whole: block_size the largest block of any part, rw the
 * mode that says what the parts do (random if any part is, writing if any does:
 * the agent lays out and allows by it), read_pct the parts' share of reads.
 */
void mixparse_finish(struct io_settings *io);

#endif
