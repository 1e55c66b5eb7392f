/* SPDX-License-Identifier: MIT */
/* Load under load: what a background workload may be, and which one it is. */
#include "background.h"
#include "yamlnode.h"

int background_check(struct yamlnode_doc *y, const yaml_node_t *load, const yaml_node_t *at,
                     const struct campaign *c, const struct workload *w)
{
	if (!w->io.background)
		return 0;
	/* one rate through every foreground step: a curve of its own would move under them */
	if (w->work.on || w->mode != LOAD_STEPS || w->nsteps != 1 || w->steps[0].peak_pct > 0 ||
	    w->refine > 0 || w->repeat > 1) {
		yamlnode_error(y, load != NULL ? load : at,
		               "load: background workload '%s' runs at one rate through the other "
		               "workloads' steps: give load: {steps: [RATE]} or load: {max: true}, "
		               "without curve, ramp, shares of the peak, refine, repeat or work",
		               w->name);
		return -1;
	}
	for (size_t i = 0; i + 1 < c->nworkloads; i++)
		if (c->workloads[i].io.background) {
			yamlnode_error(y, at,
			               "background: workload '%s' is a second background (workload "
			               "'%s' is one); a campaign runs at most one",
			               w->name, c->workloads[i].name);
			return -1;
		}
	return 0;
}

int background_check_select(struct yamlnode_doc *y, const yaml_node_t *node, const char *what)
{
	const yaml_node_t *sel, *bg;
	bool on = false;

	if (node->type != YAML_MAPPING_NODE || (sel = yamlnode_lookup(y, node, "select")) == NULL ||
	    (bg = yamlnode_lookup(y, node, "background")) == NULL)
		return 0;
	if (yamlnode_bool(y, bg, "background", &on) < 0)
		return -1;
	if (!on)
		return 0;
	yamlnode_error(y, sel,
	               "select: %s is a background, which runs on the agents of the first "
	               "foreground workload; a workload has no select of its own (agents.select "
	               "and each target's select.labels choose agents): remove it",
	               what);
	return -1;
}

int background_check_campaign(struct yamlnode_doc *y, const yaml_node_t *list,
                              const struct campaign *c)
{
	long b = background_of(c);

	if (b < 0 || c->nworkloads > 1)
		return 0;
	yamlnode_error(y, list,
	               "workloads: workload '%s' is a background, and nothing runs in the "
	               "foreground: add a workload without background: true",
	               c->workloads[b].name);
	return -1;
}

long background_of(const struct campaign *c)
{
	for (size_t i = 0; i < c->nworkloads; i++)
		if (c->workloads[i].io.background)
			return (long)i;
	return -1;
}
