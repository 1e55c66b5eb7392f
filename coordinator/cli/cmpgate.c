/* SPDX-License-Identifier: MIT */
/* compare --fail-if: parse a gate expression; compare decides whether it is breached. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmpgate.h"

#define CMPGATE_EXPECTED                                                                           \
	"expected FIGURE OP CHANGE%% (FIGURE: knee, peak, sustained, latency@RATE or storm; OP: "  \
	"<, <=, >, >=), e.g. 'knee < -5%%', 'latency@5000 > +10%%' or 'storm > +10%%'"

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
