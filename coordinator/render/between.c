/* SPDX-License-Identifier: MIT */
/* Between runs (between.h): this run's knees beside the earlier runs' of the same campaign. */
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "between.h"
#include "curve.h"
#include "saferead.h"
#include "setupdiff.h"
#include "table.h"
#include "xalloc.h"

/* Directories looked at in a results root, and the largest file read from one. */
#define BETWEEN_MAX_SCAN 4096
#define BETWEEN_MAX_FILE (4 << 20)

/*
 * DIRFD/NAME/FILE as a string, NULL when there is none or it cannot be taken: a
 * sibling is only looked at, so a link, a FIFO (which would hold the open), a
 * device or a file over BETWEEN_MAX_FILE is passed over (saferead_all).
 */
static char *between_read(int dirfd, const char *name, const char *file)
{
	char *path = xasprintf("%s/%s", name, file), *buf;
	struct error ignored;

	buf = saferead_all(dirfd, NULL, path, BETWEEN_MAX_FILE, 0, NULL, &ignored);
	free(path);
	return buf;
}

static json_t *between_json(int dirfd, const char *name, const char *file)
{
	char *text = between_read(dirfd, name, file);
	json_t *o = text ? json_loads(text, JSON_REJECT_DUPLICATES, NULL) : NULL;

	free(text);
	if (o != NULL && !json_is_object(o)) {
		json_decref(o);
		o = NULL;
	}
	return o;
}

static double between_num(const json_t *v)
{
	double d = json_is_number(v) ? json_number_value(v) : NAN;

	return isfinite(d) && d >= 0 ? d : NAN;
}

static int between_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The agents of a meta.json as one sorted text of "host target" lines: the same
 * machines on the same storage (names of local agents say nothing of either).
 */
static char *between_hosts(const json_t *meta)
{
	const json_t *ag = json_object_get(meta, "agents"), *a;
	size_t n = json_array_size(ag), i, len = 1;
	char **lines, *out;

	if (n == 0 || n > 4096)
		return NULL;
	lines = xcalloc(n, sizeof(*lines));
	json_array_foreach(ag, i, a)
	{
		const char *h = json_string_value(json_object_get(a, "host"));
		const char *t = json_string_value(json_object_get(a, "target"));

		lines[i] = xasprintf("%s %s\n", h ? h : "?", t ? t : "?");
		len += strlen(lines[i]);
	}
	qsort(lines, n, sizeof(*lines), between_cmp_str);
	out = xmalloc(len);
	out[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(out, lines[i]);
		free(lines[i]);
	}
	free(lines);
	return out;
}

/* One workload's knee from summary.json, in the unit of w's curve. */
static struct between_knee between_knee_of(const json_t *ws, const struct workload *w)
{
	struct between_knee k = {.bound = -1};
	const json_t *o = NULL, *v;
	const char *kind;
	size_t i;
	double band[2], ci[2];
	struct knee kn = {0};
	struct curve_repeats rep = {0};

	json_array_foreach(ws, i, v) if (json_is_string(json_object_get(v, "name")) &&
	                                 strcmp(json_string_value(json_object_get(v, "name")),
	                                        w->name) == 0) o = v;
	kind = json_string_value(json_object_get(o, "knee_kind"));
	if (o == NULL || kind == NULL || strcmp(kind, "none") == 0)
		return k;
	k.knee = between_num(json_object_get(o, curve_uses_mib(w) ? "knee_mibps" : "knee_ops"));
	if (!isfinite(k.knee) || k.knee <= 0)
		return k;
	k.bound =
	    strcmp(kind, "above_peak") == 0 || json_is_true(json_object_get(o, "knee_lower_bound"));
	v = json_object_get(o, "knee_band");
	band[0] = between_num(json_array_get(v, 0));
	band[1] = between_num(json_array_get(v, 1));
	if (k.bound == 0 && isfinite(band[0]) && isfinite(band[1]) && band[0] <= band[1]) {
		kn.bracket_hi = band[1];
		kn.band_lo = band[0];
		kn.band_hi = band[1];
	}
	/* with repeats: their mean, and its t interval joined with the band (curve.h's rule) */
	v = json_object_get(o, "knee_mean_ci95");
	ci[0] = between_num(json_array_get(v, 0));
	ci[1] = between_num(json_array_get(v, 1));
	if (k.bound == 0 && isfinite(ci[0]) && isfinite(ci[1]) && ci[0] <= ci[1] &&
	    isfinite(between_num(json_object_get(o, "knee_mean"))) && !curve_uses_mib(w)) {
		k.knee = between_num(json_object_get(o, "knee_mean"));
		rep = (struct curve_repeats){
		    .n = 2, .mean = (ci[0] + ci[1]) / 2, .ci = (ci[1] - ci[0]) / 2};
	}
	k.band = k.bound == 0 && curve_knee_interval(&kn, &rep, &k.lo, &k.hi);
	if (k.bound == 1) {
		k.lo = k.knee;
		k.hi = INFINITY;
	}
	return k;
}

struct between_knee between_this(const struct judged_curve *j)
{
	const struct knee *kn = &j->knee;
	struct between_knee k = {.bound = -1};

	if (kn->kind == KNEE_NONE || kn->kind == KNEE_ALL_OVER || !(kn->throughput > 0))
		return k;
	k.knee = j->repeats.n ? j->repeats.mean : kn->throughput;
	k.bound = kn->kind == KNEE_ALL_UNDER || j->client_bound > 0;
	if (k.bound) {
		k.lo = k.knee;
		k.hi = INFINITY;
		return k;
	}
	k.band = curve_knee_interval(kn, &j->repeats, &k.lo, &k.hi) && k.lo > 0 && k.hi > 0;
	return k;
}

int between_overlap(const struct between_knee *a, const struct between_knee *b)
{
	if (a->bound != 0 || b->bound != 0 || !a->band || !b->band)
		return -1;
	return a->hi >= b->lo && b->hi >= a->lo;
}

/* The earlier run in root/name, when it is one of this campaign's: 0, else -1 (skip) or -2 (not
 * ours). */
static int between_load(int rootfd, const char *name, const struct campaign *c, const char *started,
                        const char *hosts, struct between_run *run)
{
	json_t *sum = between_json(rootfd, name, "summary.json"), *meta = NULL;
	const char *camp = json_string_value(json_object_get(sum, "campaign"));
	const char *status = json_string_value(json_object_get(sum, "status"));
	const char *when;
	char *plan = NULL, *theirs = NULL, *path = NULL, diff[512];
	struct campaign *pc = NULL;
	struct error err;
	int rc = -2;

	if (camp == NULL || strcmp(camp, c->name) != 0)
		goto out;
	rc = -1;
	meta = between_json(rootfd, name, "meta.json");
	when = json_string_value(json_object_get(meta, "started"));
	/* only runs that began before this one: a report rebuilt later says the same */
	if (when == NULL || strlen(when) >= sizeof(run->started) || strcmp(when, started) >= 0) {
		rc = -2;
		goto out;
	}
	if (status == NULL || strcmp(status, "complete") != 0 ||
	    json_integer_value(json_object_get(sum, "agents_lost")) != 0)
		goto out;
	theirs = between_hosts(meta);
	if (theirs == NULL || strcmp(theirs, hosts) != 0)
		goto out;
	plan = between_read(rootfd, name, "plan.yaml");
	if (plan == NULL)
		goto out;
	/* the bytes read (no symlink followed), parsed as a plan: literal, nothing expanded */
	path = xasprintf("%s/plan.yaml", name);
	if (campaign_parse(plan, strlen(plan), path, &pc, &err) < 0 ||
	    setupdiff(c, pc, diff, sizeof(diff)) > 0)
		goto out;
	snprintf(run->name, sizeof(run->name), "%s", name);
	snprintf(run->started, sizeof(run->started), "%s", when);
	run->k = xcalloc(c->nworkloads ? c->nworkloads : 1, sizeof(*run->k));
	for (size_t w = 0; w < c->nworkloads; w++)
		run->k[w] = between_knee_of(json_object_get(sum, "workloads"), &c->workloads[w]);
	rc = 0;
out:
	if (pc != NULL)
		campaign_free(pc);
	free(path);
	free(plan);
	free(theirs);
	json_decref(meta);
	json_decref(sum);
	return rc;
}

static int between_newest_first(const void *a, const void *b)
{
	return -strcmp(((const struct between_run *)a)->started,
	               ((const struct between_run *)b)->started);
}

/* A name as a directory of the results root: no path, no dot name. */
static bool between_name_ok(const char *name)
{
	return name[0] != '\0' && name[0] != '.' && strchr(name, '/') == NULL &&
	       strlen(name) < sizeof(((struct between_run *)0)->name);
}

/* The runs meta.json recorded when the run began (between_record), in its order. */
static struct between *between_recorded(int rootfd, const json_t *list, json_int_t skipped,
                                        const struct campaign *c, const char *started,
                                        const char *hosts)
{
	struct between *b = xcalloc(1, sizeof(*b));
	const json_t *v;
	size_t i;

	b->skipped = skipped > 0 && skipped < 1000000 ? (size_t)skipped : 0;
	json_array_foreach(list, i, v)
	{
		struct between_run run = {0};
		const char *name = json_string_value(v);

		if (b->nruns == BETWEEN_MAX_RUNS || name == NULL || !between_name_ok(name))
			continue;
		/* gone or changed since: left out, never a failure */
		if (between_load(rootfd, name, c, started, hosts, &run) == 0)
			b->runs[b->nruns++] = run;
	}
	return b;
}

struct between *between_find(const char *dir, const struct campaign *c, const char *meta)
{
	char *copy = xstrdup(dir), *root, *self;
	json_t *m = meta ? json_loads(meta, 0, NULL) : NULL;
	const char *started = json_string_value(json_object_get(m, "started"));
	char *hosts = m ? between_hosts(m) : NULL;
	struct between *b = NULL;
	struct between_run *all = NULL;
	size_t nall = 0, cap = 0, seen = 0, skipped = 0;
	struct dirent *de;
	DIR *d = NULL;

	self = xstrdup(basename(copy));
	free(copy);
	copy = xstrdup(dir);
	root = dirname(copy);
	if (started == NULL || hosts == NULL || (d = opendir(root)) == NULL)
		goto out;
	/* recorded at the start: the same runs whatever the root holds now */
	if (json_is_array(json_object_get(m, "earlier_runs"))) {
		b = between_recorded(dirfd(d), json_object_get(m, "earlier_runs"),
		                     json_integer_value(json_object_get(m, "earlier_runs_skipped")),
		                     c, started, hosts);
		if (b->nruns == 0 && b->skipped == 0) {
			between_free(b);
			b = NULL;
		}
		goto out;
	}
	while ((de = readdir(d)) != NULL && seen++ < BETWEEN_MAX_SCAN) {
		struct between_run run = {0};
		int rc;

		if (de->d_name[0] == '.' || strcmp(de->d_name, self) == 0 ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		rc = between_load(dirfd(d), de->d_name, c, started, hosts, &run);
		if (rc == -1)
			skipped++;
		if (rc < 0)
			continue;
		if (nall == cap) {
			cap = cap ? 2 * cap : 8;
			all = xreallocarray(all, cap, sizeof(*all));
		}
		all[nall++] = run;
	}
	if (nall == 0 && skipped == 0)
		goto out;
	if (nall > 1) /* qsort is not given a NULL array, even of none */
		qsort(all, nall, sizeof(*all), between_newest_first);
	b = xcalloc(1, sizeof(*b));
	b->skipped = skipped;
	for (size_t i = 0; i < nall; i++) {
		if (b->nruns < BETWEEN_MAX_RUNS)
			b->runs[b->nruns++] = all[i];
		else
			free(all[i].k);
	}
out:
	if (d != NULL)
		closedir(d);
	free(all);
	free(hosts);
	free(self);
	free(copy);
	json_decref(m);
	return b;
}

void between_free(struct between *b)
{
	if (b == NULL)
		return;
	for (size_t i = 0; i < b->nruns; i++)
		free(b->runs[i].k);
	free(b);
}

double between_spread(const struct between *b, size_t w, const struct between_knee *self)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t n = 0;

	if (self->bound == 0) {
		lo = hi = self->knee;
		n++;
	}
	for (size_t i = 0; b != NULL && i < b->nruns; i++) {
		const struct between_knee *k = &b->runs[i].k[w];

		if (k->bound != 0)
			continue;
		lo = fmin(lo, k->knee);
		hi = fmax(hi, k->knee);
		n++;
	}
	return n >= 2 && lo > 0 ? (hi - lo) / lo : NAN;
}

/* "67,700 [67,700-72,700]", ">= 32,000": as the headline prints them (table_fmt_measured). */
static void between_fmt(const struct workload *w, const struct between_knee *k, char *buf,
                        size_t len)
{
	char v[32], lo[32], hi[32];

	if (k->bound < 0) {
		snprintf(buf, len, "none");
		return;
	}
	table_fmt_measured(w, k->knee, v, sizeof(v));
	if (k->bound > 0) {
		snprintf(buf, len, ">= %s", v);
	} else if (k->band) {
		table_fmt_measured(w, k->lo, lo, sizeof(lo));
		table_fmt_measured(w, k->hi, hi, sizeof(hi));
		snprintf(buf, len, "%s [%s-%s]", v, lo, hi);
	} else
		snprintf(buf, len, "%s", v);
}

bool between_text(const struct between *b, const struct campaign *c,
                  const struct judged_curve *judged, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	if (b == NULL || (b->nruns == 0 && b->skipped == 0))
		return false;
#define BT_PUT(...)                                                                                \
	do {                                                                                       \
		int n_ = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__);              \
		if (n_ > 0)                                                                        \
			off += (size_t)n_;                                                         \
	} while (0)
	if (b->nruns == 0) {
		BT_PUT(
		    "Between runs: %zu earlier run%s of %s here, none comparable (another "
		    "setup, other hosts, or not complete): this run's bands are its own evidence "
		    "only.",
		    b->skipped, b->skipped == 1 ? "" : "s", c->name);
		return off < len;
	}
	BT_PUT("Between runs: a band is one run's evidence; the storage may change between runs. "
	       "The %zu most recent earlier run%s of %s here with this setup and these hosts "
	       "(newest first: ",
	       b->nruns, b->nruns == 1 ? "" : "s", c->name);
	for (size_t i = 0; i < b->nruns; i++)
		BT_PUT("%s%s", i ? ", " : "", b->runs[i].name);
	BT_PUT("):");
	for (size_t w = 0; w < c->nworkloads; w++) {
		struct between_knee self = between_this(&judged[w]);
		size_t apart = 0, known = 0;
		double spread = between_spread(b, w, &self);
		char t[112];

		between_fmt(&c->workloads[w], &self, t, sizeof(t));
		BT_PUT("\n- %s: this run %s; earlier", c->workloads[w].name, t);
		for (size_t i = 0; i < b->nruns; i++) {
			int o = between_overlap(&self, &b->runs[i].k[w]);

			between_fmt(&c->workloads[w], &b->runs[i].k[w], t, sizeof(t));
			BT_PUT("%s %s", i ? "," : "", t);
			known += o >= 0;
			apart += o == 0;
		}
		if (known == 0)
			BT_PUT(". Overlap unknown (a bound or no band).");
		else if (apart == 0)
			BT_PUT(". Every band overlaps this run's");
		else
			BT_PUT(". %zu of %zu bands do NOT overlap this run's: the figure did not "
			       "repeat "
			       "within its band",
			       apart, known);
		if (isfinite(spread))
			BT_PUT("%s knees %.1f%% apart across runs.", known ? ";" : "",
			       100 * spread);
		else if (known)
			BT_PUT(".");
	}
#undef BT_PUT
	return off < len;
}

char *between_record(const char *meta, const struct between *b)
{
	json_t *m = meta ? json_loads(meta, JSON_REJECT_DUPLICATES, NULL) : NULL;
	json_t *names;
	char *text;

	if (!json_is_object(m)) {
		json_decref(m);
		return meta ? xstrdup(meta) : NULL;
	}
	names = json_array();
	for (size_t i = 0; b != NULL && i < b->nruns; i++)
		json_array_append_new(names, json_string(b->runs[i].name));
	json_object_set_new(m, "earlier_runs", names);
	json_object_set_new(m, "earlier_runs_skipped",
	                    json_integer(b ? (json_int_t)b->skipped : 0));
	text = json_dumps(m, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(m);
	return text ? text : xstrdup(meta);
}
