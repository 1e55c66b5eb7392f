/* SPDX-License-Identifier: MIT */
/* compare --fail-if: parse a gate expression, and weigh two runs' figures against it. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmpgate.h"

#define CMPGATE_EXPECTED                                                                           \
	"expected FIGURE OP CHANGE%% [beyond noise] (FIGURE: knee, peak, sustained, latency@RATE " \
	"or storm; OP: <, <=, >, >=; 'beyond noise' for knee and latency@RATE), e.g. "             \
	"'knee < -5%%', 'latency@5000 > +10%% beyond noise' or 'storm > +10%%'"

static const char *cmpgate_skip(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

int cmpgate_parse(const char *s, struct cmpgate *g, char *why, size_t len)
{
	const char *p = cmpgate_skip(s);
	char *end;

	memset(g, 0, sizeof(*g));
	snprintf(g->text, sizeof(g->text), "%s", s);
	if (strncmp(p, "knee", 4) == 0) {
		g->figure = CMPGATE_KNEE;
		p += 4;
	} else if (strncmp(p, "peak", 4) == 0) {
		g->figure = CMPGATE_PEAK;
		p += 4;
	} else if (strncmp(p, "sustained", 9) == 0) {
		g->figure = CMPGATE_SUSTAINED;
		p += 9;
	} else if (strncmp(p, "storm", 5) == 0) {
		g->figure = CMPGATE_STORM;
		p += 5;
	} else if (strncmp(p, "latency@", 8) == 0) {
		g->figure = CMPGATE_LATENCY;
		g->rate = strtod(p + 8, &end);
		if (end == p + 8 || !(g->rate > 0) || !isfinite(g->rate)) {
			snprintf(why, len, "'%s': latency@ needs a rate in ops/s (latency@5000)",
			         s);
			return -1;
		}
		p = end;
	} else {
		snprintf(why, len, "'%s': unknown figure; " CMPGATE_EXPECTED, s);
		return -1;
	}
	p = cmpgate_skip(p);
	if (*p != '<' && *p != '>') {
		snprintf(why, len, "'%s': no comparison after the figure; " CMPGATE_EXPECTED, s);
		return -1;
	}
	g->below = *p++ == '<';
	if (*p == '=') {
		g->or_eq = true;
		p++;
	}
	p = cmpgate_skip(p);
	g->pct = strtod(p, &end);
	if (end == p || !isfinite(g->pct)) {
		snprintf(why, len, "'%s': no change after the comparison; " CMPGATE_EXPECTED, s);
		return -1;
	}
	p = cmpgate_skip(end);
	if (*p != '%') {
		snprintf(why, len,
		         "'%s': the change is a percentage of the base run's figure "
		         "(%s%%); " CMPGATE_EXPECTED,
		         s, "-5");
		return -1;
	}
	p = cmpgate_skip(p + 1);
	if (strncmp(p, "beyond", 6) == 0 && isspace((unsigned char)p[6]) &&
	    strncmp(cmpgate_skip(p + 6), "noise", 5) == 0) {
		const char *q = cmpgate_skip(cmpgate_skip(p + 6) + 5);

		if (*q == '\0' && g->figure != CMPGATE_KNEE && g->figure != CMPGATE_LATENCY) {
			char fn[48];

			snprintf(
			    why, len,
			    "'%s': the %s figure has no 95%% interval to tell noise by; 'beyond "
			    "noise' is for knee and latency@RATE (drop it: the threshold decides)",
			    s, cmpgate_figure_name(g, fn, sizeof(fn)));
			return -1;
		}
		if (*q == '\0') {
			g->noise = true;
			p = q;
		}
	}
	if (*p != '\0') {
		snprintf(why, len, "'%s': unexpected '%s' at the end; " CMPGATE_EXPECTED, s, p);
		return -1;
	}
	return 0;
}

const char *cmpgate_figure_name(const struct cmpgate *g, char *buf, size_t len)
{
	static const char *const names[] = {"knee", "peak", "sustained", "latency", "storm"};

	if (g->figure == CMPGATE_LATENCY)
		snprintf(buf, len, "latency@%g", g->rate);
	else
		snprintf(buf, len, "%s", names[g->figure]);
	return buf;
}

bool cmpgate_past(const struct cmpgate *g, double pct)
{
	if (g->below)
		return g->or_eq ? pct <= g->pct : pct < g->pct;
	return g->or_eq ? pct >= g->pct : pct > g->pct;
}

/* Who holds the bound: the base's figure or the later run's. */
static const char *cmpgate_whose(const struct cmpgate_fig *a)
{
	return a->bound ? "the base's figure" : "the later run's figure";
}

struct cmpgate_decision cmpgate_decide(const struct cmpgate *g, const struct cmpgate_fig *a,
                                       const struct cmpgate_fig *b)
{
	struct cmpgate_decision d = {.verdict = CMPGATE_UNDECIDED, .word = "undecided"};
	/* the way each bound can move the true change: a base at least a makes it lower */
	int da = -a->bound, db = b->bound;
	const char *who = cmpgate_whose(a), *kind = (a->bound ? a->bound : b->bound) > 0
	                                                ? "a lower bound"
	                                                : "an upper bound";
	double lo, hi;
	bool all, none;

	d.pct = a->v > 0 ? 100.0 * (b->v - a->v) / a->v : NAN;
	if (!isfinite(d.pct)) {
		snprintf(d.why, sizeof(d.why),
		         "the base's figure is not above 0: no change in %% to weigh");
		return d;
	}
	if (da != 0 && db != 0 && da != db) {
		d.dir = 2;
		snprintf(d.why, sizeof(d.why), "%s: the change could be anything",
		         a->bound > 0 ? "both figures are lower bounds"
		                      : "both figures are bounds, pulling opposite ways");
		return d;
	}
	d.dir = da != 0 ? da : db;
	lo = d.dir < 0 ? -INFINITY : d.pct;
	hi = d.dir > 0 ? INFINITY : d.pct;
	/* every change the bounds allow passes the threshold; none of them does */
	all = cmpgate_past(g, g->below ? hi : lo);
	none = !cmpgate_past(g, g->below ? lo : hi);
	if (none) {
		d.verdict = CMPGATE_PASS;
		d.word = "pass";
		if (d.dir == 0)
			snprintf(d.why, sizeof(d.why), "within the threshold");
		else
			snprintf(d.why, sizeof(d.why),
			         "within the threshold for sure: %s is %s, so the true change can "
			         "only be %s",
			         who, kind, d.dir < 0 ? "lower" : "higher");
		return d;
	}
	if (!all) {
		snprintf(d.why, sizeof(d.why),
		         "%s is %s, so the true change may be %s than this and %s the threshold",
		         who, kind, d.dir < 0 ? "lower" : "higher",
		         cmpgate_past(g, d.pct) ? "within" : "past");
		return d;
	}
	if (!g->noise) {
		d.verdict = CMPGATE_BREACH;
		d.word = "breach";
		if (d.dir == 0)
			snprintf(d.why, sizeof(d.why), "past the threshold");
		else
			snprintf(d.why, sizeof(d.why),
			         "past the threshold for sure: %s is %s, so the true change can "
			         "only be %s",
			         who, kind, d.dir < 0 ? "lower" : "higher");
		return d;
	}
	if (!a->band || !b->band) {
		snprintf(d.why, sizeof(d.why),
		         "past the threshold, but not beyond noise for sure: %s no 95%% interval",
		         !a->band && !b->band ? "neither figure has"
		         : !a->band           ? "the base's figure has"
		                              : "the later run's figure has");
		return d;
	}
	d.bands = true;
	if (a->hi < b->lo || b->hi < a->lo) {
		d.verdict = CMPGATE_BREACH;
		d.word = "breach";
		snprintf(d.why, sizeof(d.why), "past the threshold and beyond noise");
	} else {
		d.verdict = CMPGATE_PASS;
		d.word = "within noise";
		snprintf(d.why, sizeof(d.why), "past the threshold but within noise");
	}
	return d;
}
