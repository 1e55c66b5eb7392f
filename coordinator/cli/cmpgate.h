/* SPDX-License-Identifier: MIT */
/* compare --fail-if: the gate's expressions ("knee < -5%", "latency@5000 > +10%"), parsed. */
#ifndef IOCURVE_CMPGATE_H
#define IOCURVE_CMPGATE_H

#include <stdbool.h>
#include <stddef.h>

/* compare exits with this status when a gate is breached beyond noise. */
#define CMPGATE_EXIT_BREACH 4

enum cmpgate_figure {
	CMPGATE_KNEE,
	CMPGATE_PEAK,
	CMPGATE_SUSTAINED,
	CMPGATE_LATENCY, /* the SLO metric at the step offered rate ops/s */
	CMPGATE_STORM,   /* fixed work: first start to last finish, seconds */
};

struct cmpgate {
	enum cmpgate_figure figure;
	double rate;    /* CMPGATE_LATENCY: the offered ops/s of the step */
	bool below;     /* '<' or '<=' (else '>' or '>=') */
	bool or_eq ;    /* '<=' or '>=' */
	double pct;     /* the change threshold, in % of the base run's figure */
	char text[128]; /* the expression as given, for messages */
};

/*
 * Parse "FIGURE OP CHANGE%": FIGURE knee, peak, sustained, latency@RATE or storm
 * (fixed work's completion time); OP <, <=, > or >=; CHANGE a signed number.
 * Returns 0, or -1 with why[] saying what was wrong and what is expected.
 */
int cmpgate_parse(const char *s, struct cmpgate *g, char *why, size_t len);
/* "knee", "peak", "sustained", "latency@5000", "storm". */
const char *cmpgate_figure_name(const struct cmpgate *g, char *buf, size_t len);
/* Whether a change of pct % passes the gate's threshold (breaches it). */
bool cmpgate_past(const struct cmpgate *g, double pct);

#endif
