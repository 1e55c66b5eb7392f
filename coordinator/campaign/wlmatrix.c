/* SPDX-License-Identifier: MIT */
/* A workload's lists: rw, block_size, read_pct, queue_depth as lists, crossed or zipped. */
#include <stdio.h>
#include <string.h>

#include "wlmatrix.h"
#include "xalloc.h"

#define WLMATRIX_RW_EXPECTED "read, write, randread, randwrite, rw or randrw"

static const char *const wlmatrix_keys[WLMATRIX_NAXES] = {"rw", "block_size", "read_pct",
                                                          "queue_depth"};

const char *wlmatrix_key(int axis)
{
	return wlmatrix_keys[axis];
}

/* The row of a key a matrix can vary. */
static const struct setting *wlmatrix_row(int axis)
{
	return setting_find(wlmatrix_keys[axis]);
}

/* The axis a row is (-1: none): its key is read here, where a list makes a matrix. */
int wlmatrix_axis_of(const struct setting *s)
{
	for (int a = 0; a < WLMATRIX_NAXES; a++)
		if (s->key != NULL && strcmp(s->key, wlmatrix_keys[a]) == 0)
			return a;
	return -1;
}

/* One value of a key a matrix can vary; a list is read entry by entry through here. */
int wlmatrix_set(struct yamlnode_doc *y, int axis, const yaml_node_t *n, struct workload *w)
{
	if (axis != WLMATRIX_RW)
		return access_read(y, n, wlmatrix_row(axis), &w->io);
	if (n->type != YAML_SCALAR_NODE ||
	    rw_mode_parse((const char *)n->data.scalar.value, &w->io.rw) < 0) {
		yamlnode_expected(y, n, "rw", WLMATRIX_RW_EXPECTED);
		return -1;
	}
	return 0;
}

static uint32_t wlmatrix_value(int axis, const struct workload *w)
{
	return (uint32_t)setting_get(wlmatrix_row(axis), &w->io);
}

/* A key given as a list: check every value, and that none repeats, before any combination. */
static int wlmatrix_axis_read(struct yamlnode_doc *y, int axis, const yaml_node_t *list,
                              const struct workload *w, bool repeats_ok, struct wlmatrix_axis *ax)
{
	const char *key = wlmatrix_keys[axis];
	size_t n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);

	ax->list = list;
	ax->n = 0;
	if (n == 0) {
		yamlnode_error(y, list,
		               "%s: an empty list; give one value, or several to make a matrix of "
		               "workloads",
		               key);
		return -1;
	}
	if (n > WLMATRIX_MAX_VALUES) {
		yamlnode_error(y, list, "%s: %zu values; a matrix takes at most %d per key", key, n,
		               WLMATRIX_MAX_VALUES);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *e = yamlnode_get(y, list->data.sequence.items.start[i]);
		struct workload scratch = *w;
		uint32_t v;

		if (wlmatrix_set(y, axis, e, &scratch) < 0)
			return -1;
		v = wlmatrix_value(axis, &scratch);
		for (size_t j = 0; j < ax->n && !repeats_ok; j++) {
			if (ax->values[j] == v) {
				yamlnode_error(
				    y, e,
				    "%s: '%s' repeats an earlier value of the list (give "
				    "each value once)",
				    key, (const char *)e->data.scalar.value);
				return -1;
			}
		}
		ax->values[ax->n++] = v;
	}
	return 0;
}

/* Whether map's zip: names key (a zipped list may repeat a value: 64KiB, 64KiB, 8KiB). */
static bool wlmatrix_zips(struct yamlnode_doc *y, const yaml_node_t *map, const char *key)
{
	yaml_node_t *z = yamlnode_lookup(y, map, "zip");

	if (z == NULL || z->type != YAML_SEQUENCE_NODE)
		return false;
	for (yaml_node_item_t *it = z->data.sequence.items.start; it < z->data.sequence.items.top;
	     it++) {
		yaml_node_t *k = yamlnode_get(y, *it);

		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, key) == 0)
			return true;
	}
	return false;
}

/* The lists of map (the top level or one workload), read into axes; others keep list NULL. */
int wlmatrix_axes(struct yamlnode_doc *y, const yaml_node_t *map, const struct workload *w,
                  struct wlmatrix_axis *axes)
{
	for (int a = 0; a < WLMATRIX_NAXES; a++) {
		yaml_node_t *n = yamlnode_lookup(y, map, wlmatrix_keys[a]);

		axes[a].list = NULL;
		if (n != NULL && n->type == YAML_SEQUENCE_NODE &&
		    wlmatrix_axis_read(y, a, n, w, wlmatrix_zips(y, map, wlmatrix_keys[a]),
		                       &axes[a]) < 0)
			return -1;
	}
	return 0;
}

/* A block size as names write it: 4k, 64k, 1m; 512b when it is not whole KiB. */
static void wlmatrix_size_word(uint32_t bytes, char *buf, size_t len)
{
	if (bytes % (1u << 20) == 0)
		snprintf(buf, len, "%um", bytes >> 20);
	else if (bytes % 1024 == 0)
		snprintf(buf, len, "%uk", bytes >> 10);
	else
		snprintf(buf, len, "%ub", bytes);
}

/*
 * NAME-RW-BS[-rPCT][-qdN]: the name, then the value of each key given as a
 * list, in that order; rPCT only for a mix, where it means something. With
 * no name, RW-BS always lead, so the name still says what the workload does.
 */
char *wlmatrix_name(const struct wlmatrix *m, const char *name, const struct workload *w)
{
	char rw[16] = "", bs[16] = "", pct[16] = "", qd[16] = "";
	bool named = name != NULL;

	if (!named || m->axes[WLMATRIX_RW] != NULL)
		snprintf(rw, sizeof(rw), "%s%s", named ? "-" : "", rw_mode_name(w->io.rw));
	if (!named || m->axes[WLMATRIX_BS] != NULL) {
		bs[0] = '-';
		wlmatrix_size_word(w->io.block_size, bs + 1, sizeof(bs) - 1);
	}
	if (m->axes[WLMATRIX_PCT] != NULL && rw_is_mix(w->io.rw))
		snprintf(pct, sizeof(pct), "-r%u", w->io.read_pct);
	if (m->axes[WLMATRIX_QD] != NULL)
		snprintf(qd, sizeof(qd), "-qd%u", w->io.queue_depth);
	return xasprintf("%s%s%s%s%s", named ? name : "", rw, bs, pct, qd);
}

/* The values of one list a combination takes: read_pct only varies a mix. */
static size_t wlmatrix_axis_len(const struct wlmatrix *m, int axis, enum rw_mode rw)
{
	if (m->axes[axis] == NULL)
		return 1;
	/* zipped, read_pct pairs by position whatever the rw; alone it only varies mixes */
	if (axis == WLMATRIX_PCT && !rw_is_mix(rw) && !m->zipped[axis])
		return 1;
	return m->axes[axis]->n;
}

/* The rw of the combination at idx. */
static enum rw_mode wlmatrix_rw_at(const struct wlmatrix *m, const struct workload *base,
                                   const size_t *idx)
{
	return m->axes[WLMATRIX_RW]
	           ? (enum rw_mode)m->axes[WLMATRIX_RW]->values[idx[m->lead[WLMATRIX_RW]]]
	           : base->io.rw;
}

/*
 * The next combination: the last list turns fastest; a zipped list moves with
 * the first list of its zip. False after the last one.
 */
bool wlmatrix_next(const struct wlmatrix *m, const struct workload *base, size_t *idx)
{
	enum rw_mode rw = wlmatrix_rw_at(m, base, idx);

	for (int a = WLMATRIX_NAXES - 1; a >= 0; a--) {
		if (m->lead[a] != a)
			continue;
		if (++idx[a] < wlmatrix_axis_len(m, a, rw))
			return true;
		idx[a] = 0;
	}
	return false;
}

/* How many workloads the entry expands to: its combinations, counted. */
size_t wlmatrix_count(const struct wlmatrix *m, const struct workload *base)
{
	size_t idx[WLMATRIX_NAXES] = {0}, n = 1;

	while (wlmatrix_next(m, base, idx))
		n++;
	return n;
}

/* Whether any combination is a mix, the only kind read_pct changes. */
bool wlmatrix_any_mix(const struct wlmatrix *m, const struct workload *base)
{
	const struct wlmatrix_axis *rw = m->axes[WLMATRIX_RW];

	if (rw == NULL)
		return rw_is_mix(base->io.rw);
	for (size_t i = 0; i < rw->n; i++)
		if (rw_is_mix((enum rw_mode)rw->values[i]))
			return true;
	return false;
}

/*
 * zip: [rw, block_size]: those lists pair up by position (all as long as the
 * first) instead of making every combination; other lists still cross them.
 */
int wlmatrix_zip(struct yamlnode_doc *y, const yaml_node_t *node, const char *what,
                 struct wlmatrix *m)
{
	yaml_node_t *z = yamlnode_lookup(y, node, "zip");
	int lead = -1;

	for (int a = 0; a < WLMATRIX_NAXES; a++)
		m->lead[a] = a;
	if (z == NULL)
		return 0;
	if (z->type != YAML_SEQUENCE_NODE ||
	    z->data.sequence.items.top - z->data.sequence.items.start < 2) {
		yamlnode_expected(y, z, "zip",
		                  "a list of two or more of rw, block_size, read_pct, "
		                  "queue_depth");
		return -1;
	}
	for (yaml_node_item_t *it = z->data.sequence.items.start; it < z->data.sequence.items.top;
	     it++) {
		yaml_node_t *k = yamlnode_get(y, *it);
		const char *name =
		    k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
		int a;

		for (a = 0; a < WLMATRIX_NAXES; a++)
			if (strcmp(name, wlmatrix_keys[a]) == 0)
				break;
		if (a == WLMATRIX_NAXES) {
			yamlnode_expected(y, k, "zip", "rw, block_size, read_pct or queue_depth");
			return -1;
		}
		if (m->zipped[a]) {
			yamlnode_error(y, k, "zip: %s is named twice", name);
			return -1;
		}
		if (m->axes[a] == NULL) {
			yamlnode_error(y, k, "zip: %s is not a list in %s (zip pairs lists)", name,
			               what);
			return -1;
		}
		if (lead >= 0 && m->axes[a]->n != m->axes[lead]->n) {
			yamlnode_error(y, k,
			               "zip: %s has %zu values and %s %zu; zipped lists pair by "
			               "position and must be as long",
			               name, m->axes[a]->n, wlmatrix_keys[lead], m->axes[lead]->n);
			return -1;
		}
		if (lead < 0 || a < lead)
			lead = a;
		m->zipped[a] = true;
	}
	for (int a = 0; a < WLMATRIX_NAXES; a++)
		if (m->zipped[a])
			m->lead[a] = lead;
	return 0;
}

/* Set w's values of the combination at idx (idx: as wlmatrix_next steps it). */
void wlmatrix_combo(const struct wlmatrix *m, const size_t *idx, struct workload *w)
{
	size_t at[WLMATRIX_NAXES];

	for (int a = 0; a < WLMATRIX_NAXES; a++)
		at[a] = idx[m->lead[a]];
	for (int a = 0; a < WLMATRIX_NAXES; a++)
		/* read_pct varies only a mix; rw leads, so w->io.rw is the combination's */
		if (m->axes[a] != NULL && (a != WLMATRIX_PCT || rw_is_mix(w->io.rw)))
			setting_set(wlmatrix_row(a), &w->io, m->axes[a]->values[at[a]]);
}
