/* SPDX-License-Identifier: MIT */
/* report.html's list of what was run: the SLO, agents, targets and meta.json's provenance. */
#include <jansson.h>
#include <stdio.h>

#include "markup.h"
#include "pagemeta.h"
#include "units.h"

/* A string member of a meta.json object, "" when missing. */
static const char *pagemeta_jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static void pagemeta_dd(FILE *f, const char *dt, const char *dd)
{
	fprintf(f, "<dt>%s</dt><dd>", dt);
	markup_escape(f, dd);
	fputs("</dd>\n", f);
}

/*
 * What meta.json says of the run: when, which iocurve, how it was started, on
 * which hosts and kernels, and what the target lives on (per agent's mount).
 */
static void pagemeta_provenance(FILE *f, const char *meta)
{
	json_t *m = meta ? json_loads(meta, 0, NULL) : NULL, *ag, *co;
	const char *s;
	size_t i;
	json_t *a;

	if (!json_is_object(m)) {
		json_decref(m);
		return;
	}
	ag = json_object_get(m, "agents");
	co = json_object_get(m, "coordinator");
	fputs("<dt>Mounts</dt><dd id=\"mounts\">", f);
	json_array_foreach(ag, i, a)
	{
		s = pagemeta_jstr(a, "target");
		fputs(i ? "<br>" : "", f);
		markup_escape(f, pagemeta_jstr(a, "name"));
		fputs(": ", f);
		markup_escape(f, s && *s ? s : "- (simulated, or not known)");
	}
	fputs("</dd>\n", f);
	pagemeta_dd(f, "Date", pagemeta_jstr(m, "started"));
	pagemeta_dd(f, "iocurve", pagemeta_jstr(m, "iocurve"));
	if (*(s = pagemeta_jstr(m, "command")) != '\0') {
		fputs("<dt>Command</dt><dd><code id=\"command\">", f);
		markup_escape(f, s);
		fputs("</code></dd>\n", f);
	}
	fputs("<dt>Coordinator</dt><dd id=\"coordinator\">", f);
	markup_escape(f, pagemeta_jstr(co, "host"));
	fputs(", ", f);
	markup_escape(f, pagemeta_jstr(co, "kernel"));
	fputs("</dd>\n<dt>Agent hosts</dt><dd id=\"hosts\">", f);
	json_array_foreach(ag, i, a)
	{
		fputs(i ? "<br>" : "", f);
		markup_escape(f, pagemeta_jstr(a, "name"));
		fputs(" on ", f);
		markup_escape(f, pagemeta_jstr(a, "host"));
		fputs(", ", f);
		markup_escape(f, pagemeta_jstr(a, "kernel"));
		fputs(", iocurve ", f);
		markup_escape(f, pagemeta_jstr(a, "version"));
	}
	fputs("</dd>\n", f);
	json_decref(m);
}

void pagemeta_html(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                   const size_t *npts, const char *meta)
{
	char slo[32], size[32], svc[32];
	const struct step_point *names = NULL;

	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	fputs("<dl class=\"meta\">\n<dt>SLO</dt><dd>", f);
	fprintf(f, "%s latency &le; %s</dd>\n", campaign_slo_metric_name(c->slo_metric), slo);

	/* The agents that took part, named as the per-agent tables name them. */
	for (size_t i = 0; i < c->nworkloads; i++)
		for (size_t j = 0; j < npts[i]; j++)
			if (names == NULL || pts[i][j].nagents > names->nagents)
				names = &pts[i][j];
	fputs("<dt>Agents</dt><dd>", f);
	if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL) {
		fprintf(f, "%u local", c->agents_count);
	} else {
		fprintf(f, "%u selected", c->agents_count);
		for (size_t i = 0; i < c->nlabels; i++) {
			fputs(i ? ", " : " by label ", f);
			markup_escape(f, c->labels[i].key);
			fputc('=', f);
			markup_escape(f, c->labels[i].value);
		}
	}
	if (names && names->nagents) {
		size_t n = names->nagents < STEP_MAX_AGENTS ? names->nagents : STEP_MAX_AGENTS;

		fputs(" (", f);
		for (size_t a = 0; a < n; a++) {
			if (a)
				fputs(", ", f);
			markup_escape(f, names->agents[a].name);
		}
		if (names->nagents > n)
			fprintf(f, " and %zu more", (size_t)names->nagents - n);
		fputc(')', f);
	}
	fputs(c->multi_target ? "</dd>\n<dt>Targets</dt><dd>" : "</dd>\n<dt>Target</dt><dd>", f);
	for (size_t i = 0; i < c->ntargets; i++) {
		const struct campaign_target *t = &c->targets[i];

		if (t->name != NULL) {
			fputs(i ? "<br>" : "", f);
			markup_escape(f, t->name);
			fputs(": ", f);
		}
		if (t->sim.enabled) {
			units_format_duration(t->sim.service_ns, svc, sizeof(svc));
			fprintf(f, "simulated device: %u servers, %s service time", t->sim.servers,
			        svc);
			if (t->sim.write_service_ns) {
				units_format_duration(t->sim.write_service_ns, svc, sizeof(svc));
				fprintf(f, " (writes %s)", svc);
			}
			if (t->sim.jitter_pct)
				fprintf(f, ", %u%% jitter", t->sim.jitter_pct);
		} else {
			markup_escape(f, t->path);
			if (t->size) {
				units_format_size(t->size, size, sizeof(size));
				fprintf(f, " (%s per file)", size);
			}
			fputs(t->direct ? ", O_DIRECT" : ", buffered", f);
		}
		for (size_t k = 0; k < t->nlabels; k++) {
			fputs(k ? ", " : ", agents labelled ", f);
			markup_escape(f, t->labels[k].key);
			fputc('=', f);
			markup_escape(f, t->labels[k].value);
		}
	}
	fputs("</dd>\n", f);
	pagemeta_provenance(f, meta);
	fputs("</dl>\n", f);
}
