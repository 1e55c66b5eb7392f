/* SPDX-License-Identifier: MIT */
/* Typed access to libyaml document nodes, with errors that say file:line:column. */
#ifndef IOCURVE_YAMLNODE_H
#define IOCURVE_YAMLNODE_H

#include <stdbool.h>
#include <stdint.h>

#include <yaml.h>

#include "error.h"

/* One document being read; every accessor reports into err. */
struct yamlnode_doc {
	yaml_document_t *doc;
	const char *file; /* name used in messages */
	struct error *err;
	/*
	 * A document generated from other text (campsource.c): where a mark came from,
	 * "FILE:L:C: " or "--set KEY=VALUE: " in pre and anything to add after the
	 * message in post. NULL: file and the mark itself.
	 */
	void (*where)(void *arg, const yaml_mark_t *mark, char *pre, size_t prelen, char *post,
	              size_t postlen);
	void *where_arg;
	/*
	 * A results directory's plan.yaml to resume (campaign_load_plan), which may
	 * come from elsewhere: local paths in it must be plain (targets.c).
	 */
	bool plan;
};

/* "FILE:LINE:COLUMN: " + message, with libyaml's 0-based mark printed 1-based. */
void yamlnode_error(struct yamlnode_doc *y, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "FILE:L:C: LABEL: expected EXPECTED, got 'TEXT'" (or "got a list", ...). */
void yamlnode_expected(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                       const char *expected);

yaml_node_t *yamlnode_get(struct yamlnode_doc *y, int id);

/* The known word a typo most likely meant: within two edits, else NULL. */
const char *yamlnode_nearest(const char *name, const char *const *known);

/*
 * Check that node is a mapping whose keys are all plain scalars from known
 * (NULL-terminated), each at most once. what names the mapping in messages,
 * e.g. "campaign" or "workload 'randread-8k'"; label is the key it hangs off,
 * for the "expected a mapping" message. Returns 0 or -1.
 */
int yamlnode_check_mapping(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                           const char *what, const char *const *known);

/* The value under key in a checked mapping, or NULL when absent. */
yaml_node_t *yamlnode_lookup(struct yamlnode_doc *y, const yaml_node_t *map, const char *key);

/* The value under key, or -1 with "WHAT is missing 'KEY'" at the mapping. */
int yamlnode_require(struct yamlnode_doc *y, const yaml_node_t *map, const char *key,
                     const char *what, yaml_node_t **out);

/*
 * Scalar readers. label names the field in messages ("workers",
 * "target.size"); on a wrong type or value they fail with
 * "FILE:L:C: LABEL: expected ..., got '...'".
 */
int yamlnode_string(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                    const char **out);
int yamlnode_uint(struct yamlnode_doc *y, const yaml_node_t *node, const char *label, uint32_t min,
                  uint32_t max, uint32_t *out);
int yamlnode_bool(struct yamlnode_doc *y, const yaml_node_t *node, const char *label, bool *out);
int yamlnode_size(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                  uint64_t *out);
int yamlnode_duration(struct yamlnode_doc *y, const yaml_node_t *node, const char *label,
                      uint64_t *out);

#endif
