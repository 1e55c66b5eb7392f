/* SPDX-License-Identifier: MIT */
/*
 * A workload's settings checked against each other and against its target, each
 * refusal naming file:line:column: intervals whole in warm-up and measure, enough
 * of them, verify, clone and access against the target, fixed work within it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "syncs.h"
#include "units.h"
#include "wlcheck.h"

/* A duration as the user wrote it when we have the node, else as we print it. */
static const char *wlcheck_duration_text(const yaml_node_t *n, uint64_t ns, char *buf, size_t len)
{
	if (n != NULL)
		return (const char *)n->data.scalar.value;
	units_format_duration(ns, buf, len);
	return buf;
}

/*
 * Intervals are the unit of reporting: a warm-up or measurement that ends
 * mid-interval would leave a partial interval nobody can place on the curve.
 */
int wlcheck_multiple(struct yamlnode_doc *y, const yaml_node_t *wnode, const struct workload *w,
                     const char *label, uint64_t ns, const yaml_node_t *own,
                     const yaml_node_t *own_interval, const yaml_node_t *top,
                     const yaml_node_t *top_interval)
{
	const yaml_node_t *at, *vnode = own ? own : top,
	                       *inode = own_interval ? own_interval : top_interval;
	char vbuf[32], ibuf[32];

	if (ns % w->interval_ns == 0)
		return 0;
	/* point at the setting the workload itself changed, if any */
	at = own            ? own
	     : own_interval ? own_interval
	     : top          ? top
	     : top_interval ? top_interval
	                    : wnode;
	yamlnode_error(y, at,
	               "%s: %s is not a whole number of intervals (interval is %s) in workload "
	               "'%s'; make %s a multiple of interval",
	               label, wlcheck_duration_text(vnode, ns, vbuf, sizeof(vbuf)),
	               wlcheck_duration_text(inode, w->interval_ns, ibuf, sizeof(ibuf)), w->name,
	               label);
	return -1;
}

/* A step is held interval by interval: bound how many there are. */
int wlcheck_count(struct yamlnode_doc *y, const yaml_node_t *wnode, const struct workload *w,
                  const yaml_node_t *own, const yaml_node_t *top)
{
	uint64_t n = (w->warmup_ns + w->measure_ns) / w->interval_ns + w->steady_extend;
	const yaml_node_t *at = own ? own : top ? top : wnode;
	char vbuf[32];

	if (n <= CAMPAIGN_MAX_STEP_INTERVALS)
		return 0;
	yamlnode_error(y, at,
	               "measure: %s makes %llu intervals per step in workload '%s' (warm-up and "
	               "steady extension included); at most %u: lengthen interval or shorten "
	               "measure",
	               wlcheck_duration_text(own ? own : top, w->measure_ns, vbuf, sizeof(vbuf)),
	               (unsigned long long)n, w->name, CAMPAIGN_MAX_STEP_INTERVALS);
	return -1;
}

/* Where a setting was given: the workload's own key, else the top-level default. */
static const yaml_node_t *wlcheck_where(struct yamlnode_doc *y, const yaml_node_t *root,
                                        const yaml_node_t *node, const char *key)
{
	const yaml_node_t *n = yamlnode_lookup(y, node, key);

	if (n == NULL)
		n = yamlnode_lookup(y, root, key);
	return n != NULL ? n : node;
}

/*
 * data.clone: files every agent lays out as one golden image, then only reads. Writes
 * would make the files differ (and a later run could not tell from a few blocks read
 * back); a simulated device has no files.
 */
static int wlcheck_clone(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                         const struct campaign *c, const struct workload *w)
{
	const yaml_node_t *at;

	if (w->io.clone[0] == '\0')
		return 0;
	at = access_clone_node(y, root, node);
	if (at == NULL)
		at = node;
	if (campaign_target_of(c, w)->sim.enabled && !c->multi_target) {
		yamlnode_error(
		    y, at,
		    "data.clone: a simulated device (target.sim) has no files to lay out "
		    "as clone '%s' in workload '%s'; give target.path a directory",
		    w->io.clone, w->name);
		return -1;
	}
	if (campaign_target_of(c, w)->sim.enabled) {
		const char *tn = campaign_target_of(c, w)->name;

		yamlnode_error(
		    y, at,
		    "data.clone: a simulated device (targets.%s.sim) has no files to lay "
		    "out as clone '%s' in workload '%s'; give target %s a path, or "
		    "leave it out of the workload's targets",
		    tn, w->io.clone, w->name, tn);
		return -1;
	}
	if (rw_writes(w->io.rw)) {
		/* a top-level clone applies to every workload: it moves to those that read */
		bool own = access_clone_node(y, NULL, node) != NULL;

		yamlnode_error(y, at,
		               "data.clone: workload '%s' writes (rw: %s), and clone '%s' is "
		               "read-only: every file holds the same golden image, which writes "
		               "would change; read it (rw: read or randread), or %s",
		               w->name, rw_mode_name(w->io.rw), w->io.clone,
		               own ? "leave data.clone out of the workload that writes"
		                   : "give data.clone to the workloads that read, not the top "
		                     "level");
		return -1;
	}
	return 0;
}

/* The first size of a mix (its parts' and their distributions') or of a plain workload's
 * size distribution that is not a multiple of unit, or 0. */
static uint32_t wlcheck_mix_odd_size(const struct mix *m, uint32_t unit)
{
	for (uint32_t i = 0; i < m->sizes.n; i++)
		if (m->sizes.s[i].bytes % unit != 0)
			return m->sizes.s[i].bytes;
	for (uint32_t p = 0; p < m->nparts; p++) {
		if (m->parts[p].block_size % unit != 0)
			return m->parts[p].block_size;
		for (uint32_t i = 0; i < m->parts[p].sizes.n; i++)
			if (m->parts[p].sizes.s[i].bytes % unit != 0)
				return m->parts[p].sizes.s[i].bytes;
	}
	return 0;
}

/*
 * verify: every 4KiB block of a file carries a header naming its offset (the agent's
 * verify.h), laid out before the first read. Reads and writes are whole blocks; a
 * dedupe copy or a clone's shared image would repeat a block elsewhere; a simulated
 * device moves no data.
 */
static int wlcheck_verify(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                          const struct campaign *c, const struct workload *w)
{
	const yaml_node_t *at = wlcheck_where(y, root, node, "verify");
	uint32_t align = w->io.align ? w->io.align : w->io.block_size;
	char bs[32];

	if (!w->io.verify)
		return 0;
	if (campaign_target_of(c, w)->sim.enabled) {
		yamlnode_error(y, at,
		               "verify: a simulated device (target.sim) has no data to check in "
		               "workload '%s'; give the target a path",
		               w->name);
		return -1;
	}
	if (w->io.block_size % 4096 != 0 || align % 4096 != 0) {
		units_format_size(w->io.block_size % 4096 ? w->io.block_size : align, bs,
		                  sizeof(bs));
		yamlnode_error(y, at,
		               "verify: %s %s of workload '%s' is not a multiple of 4KiB, the "
		               "block every header covers",
		               w->io.block_size % 4096 ? "block_size" : "align", bs, w->name);
		return -1;
	}
	/* a mix's or a distribution's every size is a block too, not only the largest */
	{
		uint32_t odd = wlcheck_mix_odd_size(&w->io.mix, 4096);

		if (odd != 0) {
			units_format_size(odd, bs, sizeof(bs));
			yamlnode_error(y, at,
			               "verify: a block of %s in the %s of workload '%s' is not a "
			               "multiple of 4KiB, the block every header covers",
			               bs, w->io.mix.nparts > 0 ? "mix" : "block_size distribution",
			               w->name);
			return -1;
		}
	}
	if (w->io.dedupe_pct > 0 || w->io.clone[0] != '\0') {
		yamlnode_error(y, at,
		               "verify: workload '%s' has %s, which repeats blocks, and each "
		               "verified block's header names its own offset; leave one out",
		               w->name, w->io.clone[0] ? "data.clone" : "data.dedupe");
		return -1;
	}
	return 0;
}

/* The working set and alignment must leave room for whole, aligned blocks. */
int wlcheck_access(struct yamlnode_doc *y, const yaml_node_t *root, const yaml_node_t *node,
                   const struct campaign *c, const struct workload *w)
{
	const struct io_settings *a = &w->io;
	uint64_t tsize = campaign_target_of(c, w)->size;
	char bs[32];

	units_format_size(w->io.block_size, bs, sizeof(bs));
	if (a->working_set != 0 && a->working_set < w->io.block_size) {
		yamlnode_error(y, wlcheck_where(y, root, node, "working_set"),
		               "working_set: smaller than block_size %s of workload '%s'", bs,
		               w->name);
		return -1;
	}
	if (a->working_set != 0 && tsize != 0 && a->working_set > tsize) {
		yamlnode_error(y, wlcheck_where(y, root, node, "working_set"),
		               "working_set: larger than target.size of workload '%s'; the working "
		               "set is the part of each target that is touched",
		               w->name);
		return -1;
	}
	if (a->align != 0 && a->align > w->io.block_size) {
		yamlnode_error(y, wlcheck_where(y, root, node, "align"),
		               "align: larger than block_size %s of workload '%s'", bs, w->name);
		return -1;
	}
	if (syncs_check(y, root, node, c, w) < 0)
		return -1;
	if (wlcheck_verify(y, root, node, c, w) < 0)
		return -1;
	return wlcheck_clone(y, root, node, c, w);
}

/*
 * Fixed work is one step measured whole: no warm-up, as long as its deadline (in
 * whole intervals), never extended or run again (a second run would find the
 * sequential walk where the first left it).
 */
void wlcheck_fix_work(struct workload *w)
{
	uint64_t n = (w->work.deadline_ns + w->interval_ns - 1) / w->interval_ns;

	w->warmup_ns = 0;
	w->measure_ns = (n ? n : 1) * w->interval_ns;
	w->steady_extend = 0;
	w->retry = 0;
}

/* A sequential worker reads its share once: more than the file would wrap around. */
int wlcheck_work(struct yamlnode_doc *y, const yaml_node_t *load, const struct campaign *c,
                 const struct workload *w)
{
	const struct campaign_target *t = campaign_target_of(c, w);
	uint64_t span = w->io.working_set ? w->io.working_set : t->size;
	const yaml_node_t *work, *at;
	char a[32], b[32], key[96];

	if (!w->work.on || rw_is_random(w->io.rw) || span == 0 || w->work.bytes <= span)
		return 0;
	work = yamlnode_lookup(y, load, "work");
	at = work != NULL ? yamlnode_lookup(y, work, "bytes") : NULL;
	units_format_size(w->work.bytes, a, sizeof(a));
	units_format_size(span, b, sizeof(b));
	if (w->io.working_set)
		snprintf(key, sizeof(key), "working_set");
	else if (c->multi_target)
		snprintf(key, sizeof(key), "targets.%s.size", t->name);
	else
		snprintf(key, sizeof(key), "target.size");
	yamlnode_error(y,
	               at != NULL     ? at
	               : work != NULL ? work
	                              : load,
	               "load.work: %s per worker is more than each worker's %s (%s) in workload "
	               "'%s': a sequential worker reads or writes its share once, without wrapping "
	               "around; make the target (or working_set) at least as large, or the work "
	               "smaller",
	               a, key, b, w->name);
	return -1;
}
