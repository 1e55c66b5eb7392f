/* SPDX-License-Identifier: MIT */
/*
 * A workload's lists: rw, block_size, read_pct and queue_depth given as lists make a
 * matrix, one workload per combination (the first list outermost, values in written
 * order); zip: pairs some of them by position instead. Named NAME-RW-BS[-rPCT][-qdN].
 */
#ifndef IOCURVE_WLMATRIX_H
#define IOCURVE_WLMATRIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "access.h"
#include "campaign_def.h"
#include "yamlnode.h"

/* At most this many values in one list of a matrix. */
#define WLMATRIX_MAX_VALUES 64

/* The keys a list turns into a matrix, in the order they nest and appear in names. */
enum wlmatrix_axis_id {
	WLMATRIX_RW,
	WLMATRIX_BS,
	WLMATRIX_PCT,
	WLMATRIX_QD,
	WLMATRIX_NAXES,
};

/* One key given as a list: the values it takes, in the order written. */
struct wlmatrix_axis {
	const yaml_node_t *list;
	size_t n;
	uint32_t values[WLMATRIX_MAX_VALUES];
};

/* An entry's lists (the workload's own, else the top level's) and how they zip. */
struct wlmatrix {
	const struct wlmatrix_axis *axes[WLMATRIX_NAXES]; /* NULL: not a list */
	/* zip: the axis whose position each axis takes (itself unless zipped behind another) */
	int lead[WLMATRIX_NAXES];
	bool zipped[WLMATRIX_NAXES];
};

/* The key of an axis: "rw", "block_size", "read_pct", "queue_depth". */
const char *wlmatrix_key(int axis);
/* The axis a settings row is (-1: none): its key is read where a list makes a matrix. */
int wlmatrix_axis_of(const struct setting *s);
/* One value of a key a matrix can vary, into w; a list is read entry by entry here. */
int wlmatrix_set(struct yamlnode_doc *y, int axis, const yaml_node_t *n, struct workload *w);
/*
 * The lists of map (the top level or one workload) into axes, each value checked and
 * none repeated (unless zipped) before any combination; other keys keep list NULL.
 */
int wlmatrix_axes(struct yamlnode_doc *y, const yaml_node_t *map, const struct workload *w,
                  struct wlmatrix_axis *axes);
/* zip: of the entry node (what: "workload 'a'", for messages) into m's lead and zipped. */
int wlmatrix_zip(struct yamlnode_doc *y, const yaml_node_t *node, const char *what,
                 struct wlmatrix *m);
/* The combination after idx (the last list turns fastest); false after the last one. */
bool wlmatrix_next(const struct wlmatrix *m, const struct workload *base, size_t *idx);
/* Set w's values of the combination at idx (idx: as wlmatrix_next steps it). */
void wlmatrix_combo(const struct wlmatrix *m, const size_t *idx, struct workload *w);
/* How many workloads the lists make. */
size_t wlmatrix_count(const struct wlmatrix *m, const struct workload *base);
/* Whether any combination is a mix, the only kind read_pct changes. */
bool wlmatrix_any_mix(const struct wlmatrix *m, const struct workload *base);
/* A combination's name (name: NULL when the matrix leaves it out); allocated. */
char *wlmatrix_name(const struct wlmatrix *m, const char *name, const struct workload *w);

#endif
