/* SPDX-License-Identifier: MIT */
/* The workloads: list: settings inherited from the top level, matrices expanded, names checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "background.h"
#include "clock.h"
#include "fileparse.h"
#include "loadspec.h"
#include "mixparse.h"
#include "sizeparse.h"
#include "replayspec.h"
#include "syncs.h"
#include "targets.h"
#include "text.h"
#include "units.h"
#include "slots.h"
#include "wlcheck.h"
#include "workloads.h"
#include "xalloc.h"

#define WORKLOADS_MIN_INTERVAL_NS 100000000ULL
#define WORKLOADS_MAX_EXTEND      1000
/* steady: left out (workloads_steady_default) */
#define WORKLOADS_UNSET_EXTEND UINT32_MAX
#define WORKLOADS_UNSET_BUDGET UINT64_MAX
#define WORKLOADS_EXTEND_TIMES 3
#define WORKLOADS_BUDGET_TIMES 4
/* retry: at most this many more runs of a step whose client was disturbed. */
#define WORKLOADS_MAX_RETRY 10

#define WORKLOADS_RW_EXPECTED "read, write, randread, randwrite, rw or randrw"

static const char *const workloads_before[] = {"name", NULL};
static const char *const workloads_after[] = {"zip", "targets", NULL};
static const char *const workloads_steady_keys[] = {"extend", "budget", NULL};

/* The keys a list turns into a matrix, in the order they nest and appear in names. */
enum workloads_axis_id {
	WORKLOADS_RW,
	WORKLOADS_BS,
	WORKLOADS_PCT,
	WORKLOADS_QD,
	WORKLOADS_NAXES,
};
static const char *const workloads_axis_keys[WORKLOADS_NAXES] = {"rw", "block_size", "read_pct",
                                                                 "queue_depth"};

/* One key given as a list: the values it takes, in the order written. */
struct workloads_axis {
	const yaml_node_t *list;
	size_t n;
	uint32_t values[WORKLOADS_MAX_VALUES];
};

/*
 * Where the timing settings came from, so a mismatch between them can point
 * at the line the user has to change rather than at the workload as a whole.
 */
struct workloads_origin {
	const yaml_node_t *interval;
	const yaml_node_t *warmup;
	const yaml_node_t *measure;
};

/* What the top level gives every workload. */
struct workloads_top {
	struct workload defaults;
	struct workloads_origin origin;
	struct workloads_axis axes[WORKLOADS_NAXES];
	const yaml_node_t *load;
};

/* One entry of workloads: while it expands into workloads. */
struct workloads_entry {
	const yaml_node_t *node;
	const yaml_node_t *name_node; /* NULL: a matrix that leaves its name out */
	const char *name;
	char what[160]; /* "workload 'a'" or "workload 3", for messages */
	struct workload base;
	struct workloads_origin own;
	const struct workloads_axis *axes[WORKLOADS_NAXES]; /* NULL: not a list */
	const yaml_node_t *load;
	bool matrix;
	/* zip: the axis whose position each axis takes (itself unless zipped behind another) */
	int lead[WORKLOADS_NAXES];
	bool zipped[WORKLOADS_NAXES];
	/* targets: the campaign's targets it runs on (all unless it names some), in order */
	uint32_t targets[CAMPAIGN_MAX_TARGETS];
	size_t ntargets;
	bool direct_given; /* direct: set here or at the top: the target's does not apply */
};

/* The row of a key a matrix can vary. */
static const struct setting *workloads_axis_row(int axis)
{
	return setting_find(workloads_axis_keys[axis]);
}

/* The axis a row is (-1: none): its key is read here, where a list makes a matrix. */
static int workloads_axis_of(const struct setting *s)
{
	for (int a = 0; a < WORKLOADS_NAXES; a++)
		if (s->key != NULL && strcmp(s->key, workloads_axis_keys[a]) == 0)
			return a;
	return -1;
}

/* One value of a key a matrix can vary; a list is read entry by entry through here. */
static int workloads_set(struct yamlnode_doc *y, int axis, const yaml_node_t *n, struct workload *w)
{
	if (axis != WORKLOADS_RW)
		return access_read(y, n, workloads_axis_row(axis), &w->io);
	if (n->type != YAML_SCALAR_NODE ||
	    rw_mode_parse((const char *)n->data.scalar.value, &w->io.rw) < 0) {
		yamlnode_expected(y, n, "rw", WORKLOADS_RW_EXPECTED);
		return -1;
	}
	return 0;
}

static uint32_t workloads_value(int axis, const struct workload *w)
{
	return (uint32_t)setting_get(workloads_axis_row(axis), &w->io);
}

/* A key a matrix varies, given a single value here (a list is the matrix's to read). */
static int workloads_scalar(struct yamlnode_doc *y, const yaml_node_t *map, int axis,
                            struct workload *w)
{
	yaml_node_t *n = yamlnode_lookup(y, map, workloads_axis_keys[axis]);

	if (n == NULL || n->type == YAML_SEQUENCE_NODE)
		return 0;
	/* block_size: {4KiB: 60, 64KiB: 40}: one stream of several sizes, not a matrix */
	if (axis == WORKLOADS_BS && n->type == YAML_MAPPING_NODE)
		return sizeparse_dist(y, n, "block_size", &w->io.mix.sizes, &w->io.block_size);
	w->io.mix.sizes.n = axis == WORKLOADS_BS ? 0 : w->io.mix.sizes.n;
	return workloads_set(y, axis, n, w);
}

static int workloads_steady(struct yamlnode_doc *y, const yaml_node_t *map, struct workload *w)
{
	yaml_node_t *n;

	if (yamlnode_check_mapping(y, map, "steady", "steady", workloads_steady_keys) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "extend")) != NULL &&
	    yamlnode_uint(y, n, "steady.extend", 0, WORKLOADS_MAX_EXTEND, &w->steady_extend) < 0)
		return -1;
	if ((n = yamlnode_lookup(y, map, "budget")) != NULL &&
	    yamlnode_duration(y, n, "steady.budget", &w->steady_budget_ns) < 0)
		return -1;
	return 0;
}

/*
 * steady: left out: a step whose interval straddles the SLO runs on up to three times its
 * measured intervals (halving its interval's width), within the most a step may hold, and
 * the workload's steps' extensions within four times its measure.
 */
static void workloads_steady_default(struct workload *w)
{
	uint64_t planned = (w->warmup_ns + w->measure_ns) / w->interval_ns;
	uint64_t more = WORKLOADS_EXTEND_TIMES * (w->measure_ns / w->interval_ns);

	if (w->steady_extend == WORKLOADS_UNSET_EXTEND)
		w->steady_extend = planned >= CAMPAIGN_MAX_STEP_INTERVALS ? 0
		                   : more > CAMPAIGN_MAX_STEP_INTERVALS - planned
		                       ? (uint32_t)(CAMPAIGN_MAX_STEP_INTERVALS - planned)
		                       : (uint32_t)more;
	if (w->steady_budget_ns == WORKLOADS_UNSET_BUDGET)
		w->steady_budget_ns = WORKLOADS_BUDGET_TIMES * w->measure_ns;
}

/* A key the workloads' own code reads (SETTING_HAND), into w. */
static int workloads_hand(struct yamlnode_doc *y, const yaml_node_t *map, const char *key,
                          struct workload *w, struct workloads_origin *o)
{
	yaml_node_t *n = yamlnode_lookup(y, map, key);

	/* load: and replay: are read per workload, later */
	if (n == NULL || strcmp(key, "load") == 0 || strcmp(key, "replay") == 0)
		return 0;
	if (strcmp(key, "interval") == 0) {
		if (yamlnode_duration(y, n, "interval", &w->interval_ns) < 0)
			return -1;
		/* shorter intervals cost more in records than they tell */
		if (w->interval_ns < WORKLOADS_MIN_INTERVAL_NS) {
			yamlnode_expected(y, n, "interval", "at least 100ms");
			return -1;
		}
		/* the agents' own ceiling (common/setting.h): one limit on both sides */
		if (w->interval_ns > SETTING_MAX_INTERVAL_NS) {
			yamlnode_expected(y, n, "interval", "at most 1h");
			return -1;
		}
		o->interval = n;
	} else if (strcmp(key, "warmup") == 0) {
		if (yamlnode_duration(y, n, "warmup", &w->warmup_ns) < 0)
			return -1;
		o->warmup = n;
	} else if (strcmp(key, "measure") == 0) {
		if (yamlnode_duration(y, n, "measure", &w->measure_ns) < 0)
			return -1;
		if (w->measure_ns == 0) {
			yamlnode_expected(y, n, "measure", "a duration above 0s");
			return -1;
		}
		o->measure = n;
	} else if (strcmp(key, "steady") == 0) {
		return workloads_steady(y, n, w);
	} else if (strcmp(key, "mix") == 0) {
		return mixparse_read(y, n, &w->io);
	} else if (strcmp(key, "fileset") == 0) {
		return fileparse_fileset(y, n, &w->io.mix.fileset);
	} else if (strcmp(key, "op") == 0) {
		return fileparse_op(y, n, "op", &w->io.mix.op);
	} else if (strcmp(key, "retry") == 0) {
		return yamlnode_uint(y, n, "retry", 0, WORKLOADS_MAX_RETRY, &w->retry);
	}
	return 0;
}

/*
 * Read the settings a workload can inherit, row by row in the table's order; keys
 * that are absent keep w's values. The keys a matrix varies are read here one value
 * at a time (a list is workloads_axes'), the others by their rows or by hand.
 */
static int workloads_settings(struct yamlnode_doc *y, const yaml_node_t *map, struct workload *w,
                              struct workloads_origin *o)
{
	for (size_t i = 0; i < setting_count; i++) {
		const struct setting *s = &setting_table[i];
		int axis = workloads_axis_of(s), rc;

		if (axis >= 0)
			rc = workloads_scalar(y, map, axis, w);
		else if (s->type == SETTING_HAND)
			rc = workloads_hand(y, map, s->key, w, o);
		else
			rc = access_setting(y, map, s, &w->io);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* A key given as a list: check every value, and that none repeats, before any combination. */
static int workloads_axis_read(struct yamlnode_doc *y, int axis, const yaml_node_t *list,
                               const struct workload *w, bool repeats_ok, struct workloads_axis *ax)
{
	const char *key = workloads_axis_keys[axis];
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
	if (n > WORKLOADS_MAX_VALUES) {
		yamlnode_error(y, list, "%s: %zu values; a matrix takes at most %d per key", key, n,
		               WORKLOADS_MAX_VALUES);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *e = yamlnode_get(y, list->data.sequence.items.start[i]);
		struct workload scratch = *w;
		uint32_t v;

		if (workloads_set(y, axis, e, &scratch) < 0)
			return -1;
		v = workloads_value(axis, &scratch);
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
static bool workloads_zips(struct yamlnode_doc *y, const yaml_node_t *map, const char *key)
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
static int workloads_axes(struct yamlnode_doc *y, const yaml_node_t *map, const struct workload *w,
                          struct workloads_axis *axes)
{
	for (int a = 0; a < WORKLOADS_NAXES; a++) {
		yaml_node_t *n = yamlnode_lookup(y, map, workloads_axis_keys[a]);

		axes[a].list = NULL;
		if (n != NULL && n->type == YAML_SEQUENCE_NODE &&
		    workloads_axis_read(y, a, n, w, workloads_zips(y, map, workloads_axis_keys[a]),
		                        &axes[a]) < 0)
			return -1;
	}
	return 0;
}

/* A block size as names write it: 4k, 64k, 1m; 512b when it is not whole KiB. */
static void workloads_size_word(uint32_t bytes, char *buf, size_t len)
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
static char *workloads_matrix_name(const struct workloads_entry *e, const struct workload *w)
{
	char rw[16] = "", bs[16] = "", pct[16] = "", qd[16] = "";
	bool named = e->name != NULL;

	if (!named || e->axes[WORKLOADS_RW] != NULL)
		snprintf(rw, sizeof(rw), "%s%s", named ? "-" : "", rw_mode_name(w->io.rw));
	if (!named || e->axes[WORKLOADS_BS] != NULL) {
		bs[0] = '-';
		workloads_size_word(w->io.block_size, bs + 1, sizeof(bs) - 1);
	}
	if (e->axes[WORKLOADS_PCT] != NULL && rw_is_mix(w->io.rw))
		snprintf(pct, sizeof(pct), "-r%u", w->io.read_pct);
	if (e->axes[WORKLOADS_QD] != NULL)
		snprintf(qd, sizeof(qd), "-qd%u", w->io.queue_depth);
	return xasprintf("%s%s%s%s%s", named ? e->name : "", rw, bs, pct, qd);
}

/* The values of one list a combination takes: read_pct only varies a mix. */
static size_t workloads_axis_len(const struct workloads_entry *e, int axis, enum rw_mode rw)
{
	if (e->axes[axis] == NULL)
		return 1;
	/* zipped, read_pct pairs by position whatever the rw; alone it only varies mixes */
	if (axis == WORKLOADS_PCT && !rw_is_mix(rw) && !e->zipped[axis])
		return 1;
	return e->axes[axis]->n;
}

/* The rw of the combination at idx. */
static enum rw_mode workloads_rw_at(const struct workloads_entry *e, const size_t *idx)
{
	return e->axes[WORKLOADS_RW]
	           ? (enum rw_mode)e->axes[WORKLOADS_RW]->values[idx[e->lead[WORKLOADS_RW]]]
	           : e->base.io.rw;
}

/*
 * The next combination: the last list turns fastest; a zipped list moves with
 * the first list of its zip. False after the last one.
 */
static bool workloads_next(const struct workloads_entry *e, size_t *idx)
{
	enum rw_mode rw = workloads_rw_at(e, idx);

	for (int a = WORKLOADS_NAXES - 1; a >= 0; a--) {
		if (e->lead[a] != a)
			continue;
		if (++idx[a] < workloads_axis_len(e, a, rw))
			return true;
		idx[a] = 0;
	}
	return false;
}

/* How many workloads the entry expands to: its combinations, counted. */
static size_t workloads_count(const struct workloads_entry *e)
{
	size_t idx[WORKLOADS_NAXES] = {0}, n = 1;

	while (workloads_next(e, idx))
		n++;
	return n;
}

/* Whether any combination is a mix, the only kind read_pct changes. */
static bool workloads_any_mix(const struct workloads_entry *e)
{
	const struct workloads_axis *rw = e->axes[WORKLOADS_RW];

	if (rw == NULL)
		return rw_is_mix(e->base.io.rw);
	for (size_t i = 0; i < rw->n; i++)
		if (rw_is_mix((enum rw_mode)rw->values[i]))
			return true;
	return false;
}

/*
 * One workload of the entry (the only one unless it is a matrix) on target ti:
 * load, checks, unique name. With targets: its name is TEST@TARGET.
 */
static int workloads_add_on(struct yamlnode_doc *y, const yaml_node_t *root,
                            const struct workloads_entry *e, const struct workloads_top *top,
                            const struct workload *combo, uint32_t ti, struct campaign *c)
{
	struct workload *w = &c->workloads[c->nworkloads++];
	char lwhat[192];

	*w = *combo;
	w->steps = NULL;
	w->test = e->matrix ? workloads_matrix_name(e, w) : xstrdup(e->name);
	w->target = ti;
	w->name =
	    c->multi_target ? xasprintf("%s@%s", w->test, c->targets[ti].name) : xstrdup(w->test);
	if (!e->direct_given)
		w->io.direct = c->targets[ti].direct;
	snprintf(lwhat, sizeof(lwhat), "load of %s", e->what);
	if (e->load == top->load) {
		/* the top level's load: a plain rate must mean what it says for this one */
		char wname[160];

		snprintf(wname, sizeof(wname), "workload '%s'", w->name);
		if (loadspec_parse_inherited(y, e->load, lwhat, wname, w) < 0)
			return -1;
	} else if (loadspec_parse(y, e->load, lwhat, w) < 0) {
		return -1;
	}
	if (w->work.on)
		wlcheck_fix_work(w);
	/*
	 * A trace's operations carry their own sizes and kinds: a mix or a size distribution
	 * beside it would name parts no operation is in.
	 */
	if ((w->io.mix.nparts > 0 || w->io.mix.sizes.n > 0) &&
	    yamlnode_lookup(y, e->node, "replay") != NULL) {
		yamlnode_error(y, yamlnode_lookup(y, e->node, "replay"),
		               "replay: workload '%s' replays a trace, whose operations have their "
		               "own sizes and kinds; leave its %s out",
		               w->name, w->io.mix.nparts > 0 ? "mix" : "block_size distribution");
		return -1;
	}
	if (replayspec_parse(y, e->node, e->load, c, w) < 0)
		return -1;
	workloads_steady_default(w);
	if (wlcheck_multiple(y, e->node, w, "warmup", w->warmup_ns, e->own.warmup, e->own.interval,
	                     top->origin.warmup, top->origin.interval) < 0 ||
	    wlcheck_multiple(y, e->node, w, "measure", w->measure_ns, e->own.measure,
	                     e->own.interval, top->origin.measure, top->origin.interval) < 0 ||
	    wlcheck_count(y, e->node, w, e->own.measure, top->origin.measure) < 0)
		return -1;
	/* the common mixed test is 75/25 random; a sequential mix defaults to half */
	if (w->io.read_pct == SETTING_READ_PCT_UNSET)
		w->io.read_pct = w->io.rw == RW_RW ? 50 : 75;
	/* a mix's rw, read_pct and block_size are its parts' (a file set's: its kinds') */
	if (fileparse_finish(y, e->node, w->name, &w->io) < 0)
		return -1;
	mixparse_finish(&w->io);
	/* no queue_depth given (0 until here): slots that follow the load */
	if (w->io.queue_depth == 0)
		w->io.queue_depth = slots_depth(c, w, &w->qd_sized);
	if (wlcheck_access(y, root, e->node, c, w) < 0 || wlcheck_work(y, e->load, c, w) < 0)
		return -1;
	{
		const yaml_node_t *bg = yamlnode_lookup(y, e->node, "background");

		if (background_check(y, e->load, bg != NULL ? bg : e->node, c, w) < 0)
			return -1;
	}
	for (size_t j = 0; j + 1 < c->nworkloads; j++) {
		if (strcmp(c->workloads[j].name, w->name) != 0)
			continue;
		if (e->matrix)
			yamlnode_error(y, e->name_node ? e->name_node : e->node,
			               "%sworkload '%s' from the matrix of %s is already defined "
			               "(names must be unique; rename one)",
			               e->name_node ? "name: " : "", w->test, e->what);
		else
			yamlnode_error(y, e->name_node,
			               "name: workload '%s' is already defined (names must be "
			               "unique; rename one)",
			               w->test);
		return -1;
	}
	return 0;
}

/* The combination on each of the entry's targets. */
static int workloads_add(struct yamlnode_doc *y, const yaml_node_t *root,
                         const struct workloads_entry *e, const struct workloads_top *top,
                         const struct workload *combo, struct campaign *c)
{
	for (size_t i = 0; i < e->ntargets; i++)
		if (workloads_add_on(y, root, e, top, combo, e->targets[i], c) < 0)
			return -1;
	return 0;
}

/*
 * targets: [fast, slow] (or one name): the campaign's targets (a targets: list)
 * the workload runs on, each once; all of them when it names none.
 */
static int workloads_targets(struct yamlnode_doc *y, struct workloads_entry *e,
                             const struct campaign *c)
{
	yaml_node_t *n = yamlnode_lookup(y, e->node, "targets");
	size_t count;

	e->ntargets = 0;
	if (n == NULL) {
		for (size_t i = 0; i < c->ntargets; i++)
			e->targets[e->ntargets++] = (uint32_t)i;
		return 0;
	}
	if (!c->multi_target) {
		yamlnode_error(y, n,
		               "targets: %s names targets, but the campaign has one (target:); "
		               "give the campaign a targets: list of named targets",
		               e->what);
		return -1;
	}
	if (n->type == YAML_SCALAR_NODE)
		count = 1;
	else if (n->type == YAML_SEQUENCE_NODE &&
	         (count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)) > 0)
		;
	else {
		yamlnode_expected(y, n, "targets", "a list of target names such as [fast, slow]");
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		const yaml_node_t *k = n->type == YAML_SCALAR_NODE
		                           ? n
		                           : yamlnode_get(y, n->data.sequence.items.start[i]);
		const char *name;
		long ti;

		if (yamlnode_string(y, k, "targets", &name) < 0)
			return -1;
		if ((ti = targets_find(c, name)) < 0) {
			char names[512] = "";

			for (size_t j = 0; j < c->ntargets; j++) {
				size_t off = strlen(names);

				snprintf(names + off, sizeof(names) - off, "%s%s", j ? ", " : "",
				         c->targets[j].name);
			}
			yamlnode_error(y, k,
			               "targets: %s names target '%s', which is not defined "
			               "(targets: %s)",
			               e->what, name, names);
			return -1;
		}
		for (size_t j = 0; j < e->ntargets; j++)
			if (e->targets[j] == (uint32_t)ti) {
				yamlnode_error(y, k, "targets: %s names target '%s' twice", e->what,
				               name);
				return -1;
			}
		e->targets[e->ntargets++] = (uint32_t)ti;
	}
	return 0;
}

/* Every combination of the entry's lists, the first list outermost, values in written order. */
static int workloads_expand(struct yamlnode_doc *y, const yaml_node_t *root,
                            const struct workloads_entry *e, const struct workloads_top *top,
                            struct campaign *c)
{
	size_t idx[WORKLOADS_NAXES] = {0};

	do {
		struct workload w = e->base;
		size_t at[WORKLOADS_NAXES];

		for (int a = 0; a < WORKLOADS_NAXES; a++)
			at[a] = idx[e->lead[a]];
		for (int a = 0; a < WORKLOADS_NAXES; a++)
			/* read_pct varies only a mix; rw leads, so w.io.rw is the combination's */
			if (e->axes[a] != NULL && (a != WORKLOADS_PCT || rw_is_mix(w.io.rw)))
				setting_set(workloads_axis_row(a), &w.io,
				            e->axes[a]->values[at[a]]);
		if (workloads_add(y, root, e, top, &w, c) < 0)
			return -1;
	} while (workloads_next(e, idx));
	return 0;
}

/*
 * zip: [rw, block_size]: those lists pair up by position (all as long as the
 * first) instead of making every combination; other lists still cross them.
 */
static int workloads_zip(struct yamlnode_doc *y, struct workloads_entry *e)
{
	yaml_node_t *z = yamlnode_lookup(y, e->node, "zip");
	int lead = -1;

	for (int a = 0; a < WORKLOADS_NAXES; a++)
		e->lead[a] = a;
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

		for (a = 0; a < WORKLOADS_NAXES; a++)
			if (strcmp(name, workloads_axis_keys[a]) == 0)
				break;
		if (a == WORKLOADS_NAXES) {
			yamlnode_expected(y, k, "zip", "rw, block_size, read_pct or queue_depth");
			return -1;
		}
		if (e->zipped[a]) {
			yamlnode_error(y, k, "zip: %s is named twice", name);
			return -1;
		}
		if (e->axes[a] == NULL) {
			yamlnode_error(y, k, "zip: %s is not a list in %s (zip pairs lists)", name,
			               e->what);
			return -1;
		}
		if (lead >= 0 && e->axes[a]->n != e->axes[lead]->n) {
			yamlnode_error(y, k,
			               "zip: %s has %zu values and %s %zu; zipped lists pair by "
			               "position and must be as long",
			               name, e->axes[a]->n, workloads_axis_keys[lead],
			               e->axes[lead]->n);
			return -1;
		}
		if (lead < 0 || a < lead)
			lead = a;
		e->zipped[a] = true;
	}
	for (int a = 0; a < WORKLOADS_NAXES; a++)
		if (e->zipped[a])
			e->lead[a] = lead;
	return 0;
}

/* The entry's name: required, unless a matrix generates it from its lists. */
static int workloads_name(struct yamlnode_doc *y, struct workloads_entry *e)
{
	yaml_node_t *n = yamlnode_lookup(y, e->node, "name");

	if (n == NULL && e->matrix)
		return 0;
	if (n == NULL) {
		yamlnode_error(y, e->node,
		               "%s is missing 'name' (only a matrix, a workload with a list of "
		               "rw, block_size, read_pct or queue_depth, may leave it out)",
		               e->what);
		return -1;
	}
	if (yamlnode_string(y, n, "name", &e->name) < 0)
		return -1;
	/* names become file names in the results directory */
	if (!text_name_ok(e->name)) {
		yamlnode_expected(y, n, "name", "letters, digits, '.', '_' and '-' only");
		return -1;
	}
	e->name_node = n;
	return 0;
}

/* One entry of workloads:, starting from the top-level defaults. */
static int workloads_entry(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                           size_t index, const struct workloads_top *top, struct campaign *c)
{
	struct workloads_axis own[WORKLOADS_NAXES];
	struct workloads_entry e = {.node = node, .base = top->defaults};
	const char *keys[WORKLOADS_MAX_KEYS];
	yaml_node_t *n;
	size_t count;

	/* name the workload in messages about its other keys, when it has one */
	snprintf(e.what, sizeof(e.what), "workload %zu", index + 1);
	if (node->type == YAML_MAPPING_NODE && (n = yamlnode_lookup(y, node, "name")) != NULL &&
	    n->type == YAML_SCALAR_NODE && n->data.scalar.length > 0 && n->data.scalar.length < 100)
		snprintf(e.what, sizeof(e.what), "workload '%s'",
		         (const char *)n->data.scalar.value);
	workloads_known(workloads_before, workloads_after, keys);
	if (background_check_select(y, node, e.what) < 0 ||
	    yamlnode_check_mapping(y, node, "workloads", e.what, keys) < 0 ||
	    workloads_settings(y, node, &e.base, &e.own) < 0 ||
	    workloads_axes(y, node, &e.base, own) < 0)
		return -1;
	/* a list of the workload's own wins; a value of its own hides a top-level list */
	for (int a = 0; a < WORKLOADS_NAXES; a++) {
		if (own[a].list != NULL)
			e.axes[a] = &own[a];
		else if (yamlnode_lookup(y, node, workloads_axis_keys[a]) == NULL &&
		         top->axes[a].list != NULL)
			e.axes[a] = &top->axes[a];
		e.matrix |= e.axes[a] != NULL;
	}
	if (workloads_name(y, &e) < 0 || workloads_zip(y, &e) < 0 ||
	    workloads_targets(y, &e, c) < 0)
		return -1;
	e.direct_given = yamlnode_lookup(y, node, "direct") != NULL ||
	                 yamlnode_lookup(y, root, "direct") != NULL;
	/* a top-level list of read_pct simply does not apply to a workload that is no mix */
	if (own[WORKLOADS_PCT].list != NULL && !workloads_any_mix(&e)) {
		yamlnode_error(y, own[WORKLOADS_PCT].list,
		               "read_pct: a list of read shares needs a mix (rw: rw or randrw) in "
		               "%s; give one value, or make rw a mix",
		               e.what);
		return -1;
	}
	count = workloads_count(&e) * e.ntargets;
	if (c->nworkloads + count > WORKLOADS_MAX) {
		yamlnode_error(y, node,
		               "%s: the campaign would have %zu workloads, at most %d (a matrix "
		               "makes one per combination of its lists); shorten the lists",
		               e.what, c->nworkloads + count, WORKLOADS_MAX);
		return -1;
	}
	e.load = yamlnode_lookup(y, node, "load");
	if (e.load == NULL)
		e.load = top->load;
	if (e.load == NULL) {
		yamlnode_error(y, node,
		               "%s is missing 'load' (or give load: at the top level, for every "
		               "workload)",
		               e.what);
		return -1;
	}
	c->workloads = xreallocarray(c->workloads, c->nworkloads + count, sizeof(*c->workloads));
	return workloads_expand(y, root, &e, top, c);
}

/* A load: at the top level is checked once, even if every workload gives its own. */
static int workloads_check_top_load(struct yamlnode_doc *y, const struct workloads_top *top)
{
	struct workload scratch = top->defaults;
	int rc = loadspec_parse(y, top->load, "load", &scratch);

	free(scratch.steps);
	return rc;
}

void workloads_known(const char *const *before, const char *const *after, const char **keys)
{
	size_t n = 0;

	for (size_t i = 0; before[i] != NULL; i++)
		keys[n++] = before[i];
	n += setting_keys(NULL, keys + n, WORKLOADS_MAX_KEYS - n);
	for (size_t i = 0; after[i] != NULL && n + 1 < WORKLOADS_MAX_KEYS; i++)
		keys[n++] = after[i];
	keys[n] = NULL;
}

int workloads_parse(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *list,
                    struct campaign *c)
{
	struct workloads_top top = {
	    .defaults =
	        {
	            .interval_ns = NSEC_PER_SEC,
	            .warmup_ns = NSEC_PER_SEC,
	            .measure_ns = 5 * NSEC_PER_SEC,
	            .ramp_max_steps = 20,
	            .retry = 2,
	            .steady_extend = WORKLOADS_UNSET_EXTEND,
	            .steady_budget_ns = WORKLOADS_UNSET_BUDGET,
	        },
	};
	size_t n;

	setting_defaults(&top.defaults.io);
	/* read_pct's default is the mix's, set per workload; direct's the target's */
	top.defaults.io.read_pct = SETTING_READ_PCT_UNSET;
	top.defaults.io.direct = c->targets[0].direct;
	/* queue_depth's default is sized per workload from its load (slots.c) */
	top.defaults.io.queue_depth = 0;
	if (workloads_settings(y, root, &top.defaults, &top.origin) < 0 ||
	    workloads_axes(y, root, &top.defaults, top.axes) < 0)
		return -1;
	if ((top.load = yamlnode_lookup(y, root, "replay")) != NULL) {
		yamlnode_error(y, top.load,
		               "replay: a trace is a workload's own; give replay: in the workload "
		               "that replays it");
		return -1;
	}
	top.load = yamlnode_lookup(y, root, "load");
	if (top.load != NULL && workloads_check_top_load(y, &top) < 0)
		return -1;
	if (list->type != YAML_SEQUENCE_NODE ||
	    list->data.sequence.items.top == list->data.sequence.items.start) {
		yamlnode_expected(y, list, "workloads", "a list of one or more workloads");
		return -1;
	}
	n = (size_t)(list->data.sequence.items.top - list->data.sequence.items.start);
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *node = yamlnode_get(y, list->data.sequence.items.start[i]);

		if (workloads_entry(y, root, node, i, &top, c) < 0)
			return -1;
	}
	return background_check_campaign(y, list, c);
}
