/* SPDX-License-Identifier: MIT */
/*
 * A workload's settings read from YAML through their rows (common/setting.h): the
 * generic types by their bounds, random and data.clone by hand.
 */
#ifndef IOCURVE_ACCESS_H
#define IOCURVE_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "setting.h"

/* No libyaml here: campaign.h includes this, and the analysis layer campaign.h. */
struct yamlnode_doc;
struct yaml_node_s;

/* data.clone's name at most this many bytes less one (the agent's DATAGEN_CLONE_MAX). */
#define ACCESS_CLONE_MAX SETTING_NAME_MAX

/*
 * Read row s's key from map (a workload or the top level) into io; an absent key
 * keeps io's value. A key in a group (data.compress) is looked up in its mapping,
 * which the group's first row checks for unknown keys. Rows the workloads' own code
 * reads (SETTING_HAND, the keys a matrix varies) are not this function's.
 */
int access_setting(struct yamlnode_doc *y, const struct yaml_node_s *map, const struct setting *s,
                   struct io_settings *io);
/* One value n of row s (a count, size, duration, bool or words) into io. */
int access_read(struct yamlnode_doc *y, const struct yaml_node_s *n, const struct setting *s,
                struct io_settings *io);
/*
 * Where data.clone was given for a workload (its own data, else the top level's, as
 * the defaults are inherited): the value's node, or NULL.
 */
const struct yaml_node_s *access_clone_node(struct yamlnode_doc *y, const struct yaml_node_s *root,
                                            const struct yaml_node_s *node);

#endif
