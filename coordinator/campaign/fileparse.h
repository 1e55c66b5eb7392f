/* SPDX-License-Identifier: MIT */
/*
 * File workloads in the campaign: `fileset: {dirs, depth, files, size}` (a file set per
 * worker stream) and `op:` (a file operation, of a workload or of a mix's part), read
 * into struct mix (common/mix.h) with file:line:column errors.
 */
#ifndef IOCURVE_FILEPARSE_H
#define IOCURVE_FILEPARSE_H

#include "setting.h"
#include "yamlnode.h"

/* fileset: {dirs: 10, depth: 1, files: 100, size: 4KiB | {4KiB: 70, 1MiB: 30}} */
int fileparse_fileset(struct yamlnode_doc *y, const yaml_node_t *n, struct mix_fileset *f);
/* op: KIND (label names the key in messages): "did you mean" a kind near a typo. */
int fileparse_op(struct yamlnode_doc *y, const yaml_node_t *n, const char *label, enum fileop *op);
/*
 * A file workload made whole before its mix is (mixparse_finish): file operations need a
 * file set, a file set's operations are file operations, rw says whether any modifies
 * (the agent allows writes by it), block_size holds the largest file a part moves whole.
 * at: the workload's node, whose op/mix/fileset key the error points at.
 */
int fileparse_finish(struct yamlnode_doc *y, const yaml_node_t *at, const char *workload,
                     struct io_settings *io);

#endif
