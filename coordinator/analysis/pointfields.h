/* SPDX-License-Identifier: MIT */
/*
 * A step point's fields, described once. Each row of the table names one figure of
 * struct step_point (a member, or a small function for a computed one), its unit, how it
 * prints, since which results format it is written and which outputs carry it. curve.csv,
 * curve-*.csv, curve-*.json, the point event and the step tables of summary.md and
 * report.html all walk the table: a new field is one row in pointfields.c plus its
 * computation in agg_point.
 */
#ifndef IOCURVE_POINTFIELDS_H
#define IOCURVE_POINTFIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"

struct judged_point;

/* The outputs a field is carried in (pfield.out). */
enum pfield_out {
	PF_CURVE = 1u << 0,      /* curve.csv, the results file: column `name` */
	PF_CSV = 1u << 1,        /* curve-<workload>.csv: column `key` */
	PF_JSON = 1u << 2,       /* curve-<workload>.json's steps: key `key` */
	PF_EVENT = 1u << 3,      /* the point event: member `event` of struct event_point */
	PF_STEPS_MD = 1u << 4,   /* summary.md's step table: `title`, at column `col` */
	PF_STEPS_HTML = 1u << 5, /* report.html's step table: likewise */
};

/* What a field's value is. */
enum pfield_kind {
	PF_UINT,  /* an integer */
	PF_REAL,  /* a real, printed with `decimals` decimals */
	PF_BOOL,  /* true or false */
	PF_TEXT,  /* words (`text` writes them) */
	PF_PCTS,  /* the campaign's percentiles: latency by percentile (step_pct, step_pct_ns) */
	PF_ERROR, /* the window's first failure: errno, path, agent, offset; none without one */
};

/* Where a field's value is read: a member of struct step_point, or `get`. */
enum pfield_member { PF_M_GET, PF_M_U32, PF_M_U64, PF_M_DOUBLE, PF_M_BOOL };

/* How the step tables print a value, for people to read. */
enum pfield_human {
	PF_H_COUNT,    /* an integer as it is */
	PF_H_OFFERED,  /* whole ops/s; a closed-loop step's (0) as "max (qd N)" */
	PF_H_RATE,     /* whole ops/s (report.html groups the digits: 46,312) */
	PF_H_FIXED1,   /* one decimal */
	PF_H_DURATION, /* the stored nanoseconds as a duration: "1.2ms" */
	PF_H_PERCENT,  /* a whole percentage: "12%" */
	PF_H_TEXT,     /* words */
	PF_H_DECIMAL,  /* the value with the row's decimals (a signed gap, a queue length) */
	PF_H_SPEED,    /* a replay's speed: "x2.00" */
};

/* Whether a field is read and write apart (pfield.apart). */
enum pfield_apart {
	PF_APART_NONE = 0, /* every point's */
	PF_APART_MIXED,    /* a mixed workload's: always known (ops/s from reads) */
	PF_APART_MEASURED, /* a mixed workload's, when the agents measured the kinds apart */
	PF_APART_SYNC,     /* a syncing workload's (fsync, fdatasync: step_point.sync.on) */
	/*
	 * The kernel's view of the device: in both CSVs always (empty when not read), in
	 * the step tables when a point of the workload has it (PF_SHOW_KERNEL), and in
	 * curve-*.json as the members of each step's "kernel" object.
	 */
	PF_APART_KERNEL,
	PF_APART_BACKGROUND, /* a campaign with a background workload's (bgfig.h) */
	/* a replay's (replay: {file}): its speed; in curve.csv when the campaign has one */
	PF_APART_REPLAY,
};
/*
 * Which of those rows an output shows (pfield_list_kinds' show): a set of these. A
 * bool true is PF_SHOW_KINDS, as the argument was before syncs.
 */
#define PF_SHOW_KINDS      1u /* read and write apart (a mixed workload) */
#define PF_SHOW_MIXED      PF_SHOW_KINDS
#define PF_SHOW_SYNC       2u  /* a syncing workload's syncs */
#define PF_SHOW_KERNEL     4u  /* the kernel's view, in the step tables */
#define PF_SHOW_BACKGROUND 8u  /* the background's figures (a campaign with one) */
#define PF_SHOW_REPLAY     16u /* a replay's speed (step_point.replay_x1 > 0) */
/*
 * A mix's parts (a workload with mix:, step_point.nparts > 0): curve-*.csv's NAME_*
 * columns after the table's and curve-*.json's "parts" (render/derive.c: the columns
 * are named by the workload's parts, so they are not rows of the table).
 */
#define PF_SHOW_PARTS 32u

/* One value of a field. */
struct pfield_val {
	bool none;  /* no value: an empty CSV cell, null in JSON */
	uint64_t u; /* PF_UINT */
	double d;   /* PF_REAL (PF_UINT too, as a real): in the field's unit */
	double raw; /* as stored in the point: nanoseconds for a latency in us */
	bool b;     /* PF_BOOL */
};

/* The longest text a PF_TEXT field writes (the verdict names a path, and a background). */
#define PFIELD_TEXT_MAX (160 + RECORD_PATH_MAX + 128)
/* The rows of the table, at most. */
#define PFIELD_MAX 112

struct pfield {
	const char *name;  /* curve.csv's column; unique */
	const char *key;   /* curve-*.csv's column and curve-*.json's key (NULL: name) */
	const char *event; /* the point event's member (NULL: name) */
	const char *unit;  /* "us", "ops/s", "MiB/s", "%", "s", or "" */
	enum pfield_kind kind;
	uint8_t decimals; /* PF_REAL: printed with this many */
	enum pfield_member member;
	size_t off; /* the member's offset in struct step_point */
	double div; /* the member over div is the value (1e3: ns to us); 0: the member as it is */
	/*
	 * PF_M_GET: fills v's u (PF_UINT, PF_ERROR), raw (PF_REAL) or b (PF_BOOL), and
	 * none; jp is the point's verdict in its judged curve (NULL unless `judged`).
	 */
	void (*get)(const struct step_point *p, const struct judged_point *jp,
	            struct pfield_val *v);
	void (*text)(const struct step_point *p, const struct judged_point *jp, char *buf,
	             size_t len); /* PF_TEXT */
	/*
	 * The value is the judged curve's (judged.h: valid, the verdict's words), not
	 * the point's own: only outputs written from a judged curve carry it, and a
	 * caller without one (jp NULL) gets no value.
	 */
	bool judged;
	unsigned since; /* the results format (intervals.jsonl's "format") that first wrote it */
	unsigned out;   /* enum pfield_out: the outputs that carry it */
	/*
	 * curve-*.json's step objects open with these rows (table order), as its first
	 * release wrote them; the other rows follow, in table order.
	 */
	bool json_first;
	/*
	 * Read and write apart (enum pfield_apart): carried only for a mixed workload's
	 * points (pfield_list_kinds); PF_APART_MEASURED ones have no value ("not
	 * measured") unless every agent measured the kinds (step_point.kinds.known).
	 */
	uint8_t apart;
	const char *title; /* the step tables' heading */
	enum pfield_human human;
	uint8_t col; /* the step tables' column (1 first): their order, not the table's */
};

/* The table, *n rows, in curve.csv's order. */
const struct pfield *pfield_table(size_t *n);
/* The row named name (curve.csv's column), NULL for none. */
const struct pfield *pfield_find(const char *name);
/* The field's name in curve-*.csv and curve-*.json; in the point event. */
const char *pfield_key(const struct pfield *f);
const char *pfield_event_key(const struct pfield *f);
/*
 * The rows output `out` (one enum pfield_out) carries, in its order, into list
 * (PFIELD_MAX of them): curve.csv, curve-*.csv and the event in table order,
 * curve-*.json its json_first rows first, the step tables by col. Returns how many.
 */
size_t pfield_list(unsigned out, const struct pfield **list);
/*
 * The same, with the read and write apart rows (pfield.apart) when show has
 * PF_SHOW_KINDS (the workload's points are step_point.mixed), the sync rows when it
 * has PF_SHOW_SYNC (step_point.sync.on); pfield_list leaves them out.
 */
size_t pfield_list_kinds(unsigned out, unsigned show, const struct pfield **list);
/*
 * What a workload's outputs show (PF_SHOW_*): its kinds when mixed, its syncs when it syncs,
 * its speed when it replays a trace, its parts when it is a mix.
 */
unsigned pfield_show_of(const struct workload *w);
/*
 * What every workload's outputs of campaign c show beside their own: the background's
 * figures (PF_SHOW_BACKGROUND) when it has a background workload, in both CSV files and
 * the step tables of each foreground workload.
 */
unsigned pfield_show_campaign(const struct campaign *c);
/* The same from one of its points. */
unsigned pfield_show_point(const struct step_point *p);
/* PF_SHOW_KERNEL when a point of pts[n] has the kernel's view of its device, else 0. */
unsigned pfield_show_kernel(const struct step_point *pts, size_t n);
/*
 * The field's value in point p, whose verdict in its judged curve is jp (NULL:
 * none; a `judged` field then has no value). PF_PCTS has none of its own
 * (step_pct_ns gives them).
 */
struct pfield_val pfield_value(const struct pfield *f, const struct step_point *p,
                               const struct judged_point *jp);
/*
 * The value as a CSV cell (NUL-terminated, truncated to len): PF_UINT as an
 * integer, PF_REAL with its decimals, PF_BOOL as true or false, PF_TEXT's
 * words; "" for no value (and for PF_PCTS, PF_ERROR). Returns the length.
 */
size_t pfield_format(const struct pfield *f, const struct step_point *p,
                     const struct judged_point *jp, char *buf, size_t len);
/* The step tables' cells of column f: npct for the percentiles (their count), else one. */
static inline uint32_t pfield_cells(const struct pfield *f, uint32_t npct)
{
	return f->kind == PF_PCTS ? npct : 1;
}
/*
 * The CSV header of output out (PF_CURVE: names, PF_CSV: keys), comma separated, to f;
 * mixed: with the read and write apart columns (pfield_list_kinds).
 */
void pfield_csv_header(FILE *f, unsigned out, unsigned show);
/* Point p's cells (jp: its verdict, as pfield_value) for output out, comma separated, to f
 * (neither has a newline). */
void pfield_csv_row(FILE *f, unsigned out, unsigned show, const struct step_point *p,
                    const struct judged_point *jp);

#endif
