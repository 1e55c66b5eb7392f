/* SPDX-License-Identifier: MIT */
/*
 * compare --fail-if: the gate's expressions ("knee < -5%", "latency@5000 > +10% beyond
 * noise"), parsed, and a gate's verdict on two figures.
 */
#ifndef IOCURVE_CMPGATE_H
#define IOCURVE_CMPGATE_H

#include <stdbool.h>
#include <stddef.h>

/* compare exits with this status when a gate is breached (before CMPGATE_EXIT_UNDECIDED). */
#define CMPGATE_EXIT_BREACH 4
/* ... and with this one when none is breached but a gate could not decide (5 is run's). */
#define CMPGATE_EXIT_UNDECIDED 6

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
	bool noise;     /* "beyond noise": a breach also needs the two 95% intervals apart */
	char text[128]; /* the expression as given, for messages */
};

/*
 * Parse "FIGURE OP CHANGE% [beyond noise]": FIGURE knee, peak, sustained, latency@RATE
 * or storm (fixed work's completion time); OP <, <=, > or >=; CHANGE a signed number;
 * "beyond noise" for knee and latency@RATE only (the others have no interval).
 * Returns 0, or -1 with why[] saying what was wrong and what is expected.
 */
int cmpgate_parse(const char *s, struct cmpgate *g, char *why, size_t len);
/* "knee", "peak", "sustained", "latency@5000", "storm". */
const char *cmpgate_figure_name(const struct cmpgate *g, char *buf, size_t len);
/* Whether a change of pct % passes the gate's threshold (breaches it). */
bool cmpgate_past(const struct cmpgate *g, double pct);

/* A run's figure as the gate weighs it. */
struct cmpgate_fig {
	double v;  /* the estimate */
	int bound; /* 0 measured; 1 a lower bound (the figure is at least v); -1 an upper bound */
	bool band; /* lo-hi is its 95% interval */
	double lo, hi;
};

enum cmpgate_verdict { CMPGATE_PASS, CMPGATE_BREACH, CMPGATE_UNDECIDED };

struct cmpgate_decision {
	enum cmpgate_verdict verdict;
	const char *word; /* "pass", "breach", "within noise" (a pass), "undecided" */
	double pct;       /* the change at the estimates, in % of the base's; NaN: none */
	int dir;          /* the true change: 0 pct, -1 at most pct, 1 at least pct, 2 unknown */
	bool bands;       /* the two intervals were compared ("beyond noise") */
	char why[256];    /* what decided it, or why nothing could */
};

/*
 * Gate g on the base's figure a and the later run's b. The change at the estimates
 * decides, a bound taken in the direction it is sure: a base that is a lower bound
 * can only make the change lower, a later run that is one only higher. Breach when
 * every change the bounds allow passes the threshold, pass when none does, else
 * undecided. With g->noise a breach also needs both intervals, apart ("within
 * noise" when they overlap, undecided without both).
 */
struct cmpgate_decision cmpgate_decide(const struct cmpgate *g, const struct cmpgate_fig *a,
                                       const struct cmpgate_fig *b);

#endif
