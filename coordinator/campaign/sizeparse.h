/* SPDX-License-Identifier: MIT */
/* A size distribution in the campaign: {4KiB: 60, 64KiB: 40}, a block_size's or a file set's. */
#ifndef IOCURVE_SIZEPARSE_H
#define IOCURVE_SIZEPARSE_H

#include "mix.h"
#include "yamlnode.h"

/*
 * block_size: {SIZE: PCT, ...} into s (shares adding up to 100), the largest into
 * *block_size. label names the key in messages ("block_size", "mix part 'a' block_size").
 */
int sizeparse_dist(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                   struct mix_sizes *s, uint32_t *block_size);

#endif
