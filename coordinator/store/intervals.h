/* SPDX-License-Identifier: MIT */
/* intervals.jsonl: the one place that writes its lines and reads them back. */
#ifndef IOCURVE_INTERVALS_H
#define IOCURVE_INTERVALS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "aggregate.h"
#include "error.h"
#include "marks.h"
#include "obsline.h"

/*
 * The layout of a line. Every line carries it as "format"; lines without the
 * field were written before it existed and read as format 1. The reader takes
 * every format up to INTERVALS_FORMAT, each in its own layout (a counter a
 * line's format predates takes its default, intervals.c), and refuses a newer
 * one naming file and line. A field a reader requires (a new counter) takes
 * format N + 1, and so does a change a reader of format N could misread (a
 * renamed or re-meant field); a field every reader may ignore does not.
 * 1: iocurve 0.1.0; 2: "wakes"; 3: lost lines ("lost": an agent the campaign went on
 * without); 4: mark lines ("mark": a labelled moment on the timeline, marks.h) and
 * finish lines ("finish": a worker's part of a fixed-work step); 5: "syncs" (sync writes
 * completed) and, when there were any, "sync_latency"; the kernel's view of the device
 * ("kernel_n".."nfs_exec_ms", and "kernel_dev" when one was read); background lines
 * ("background": the background workload's figures over a foreground step); "mismatches"
 * (verify); observe lines ("observe": what a polled source said at an interval's end,
 * obsline.h), which a reader of format 4 would take for a record it cannot read; a
 * mix's "parts" (each part's ops, reads, bytes and latency), in the same format 5.
 */
#define INTERVALS_FORMAT   5
#define INTERVALS_MERGED   "*" /* the agent of the merged (fleet) line */
#define INTERVALS_NAME_MAX 128

/*
 * A clock line: one agent's step start. The coordinator planned planned_ns (its
 * clock) and sent offset_ns (agent minus coordinator, drift included) with it;
 * the agent reports the start it ran from on its clock (start_agent_ns), which
 * the coordinator brings back with its clock model as of the step's end
 * (start_ns). uncertainty_ns: how far the true offset at the start may be from
 * offset_ns (half the smallest round trip plus the drift's error).
 */
struct intervals_clock {
	uint64_t planned_ns;
	uint64_t start_agent_ns;
	uint64_t start_ns;
	int64_t offset_ns;
	uint64_t uncertainty_ns;
	double drift_ppm;
	uint64_t rtt_ns;
};

/*
 * A finish line: one worker's part of a fixed-work step (agent `agent`, its worker
 * `worker`): its start, seconds after the step's; the time from its start to its
 * last completion (done_s, < 0: it did not finish: "done_s": null); the
 * operations it completed.
 */
struct intervals_finish {
	uint32_t worker;
	double start_s;
	double done_s;
	uint64_t ops;
};

/*
 * A background line: what the campaign's background workload (`background`) achieved
 * over the measured window of the foreground step the line names (bgfig.h): its asked
 * ops/s (0: max), achieved ops/s and MiB/s, mean and p99 latency, operations missed,
 * and the reports merged (agents x intervals).
 */
struct intervals_bg {
	char name[INTERVALS_NAME_MAX];
	double asked_ops, ops, mib_s, mean_ns;
	uint64_t p99_ns, missed;
	uint32_t intervals;
};

/*
 * One line, typed. A record line is one agent's interval (or the merge of
 * every agent's, agent "*"); a window line is the measured window the runner
 * chose for an extended step, written when it cut the step short.
 */
struct intervals_line {
	bool window;
	bool cooldown;    /* a cooldown line: the wait before step `step` (cooldown_*) */
	bool clock;       /* a clock line: agent and clock are set */
	uint32_t retried; /* a retried line: the step's attempt N (from 1) before it is void */
	char workload[INTERVALS_NAME_MAX];
	uint32_t step;
	/* record lines */
	char agent[INTERVALS_NAME_MAX];
	double offered_ops;
	uint32_t interval;
	struct agg_record rec; /* rec.no_bins: an agent's line without its bins (agents.detail) */
	/* window lines: intervals [window_from, window_to) */
	uint32_t window_from, window_to;
	/* cooldown lines: how long the step waited, and how that ended */
	uint32_t cooldown_ms;
	char cooldown_outcome[16];
	/* clock lines */
	struct intervals_clock clk;
	/*
	 * lost lines: agent `agent` left step `step` (on_agent_loss: continue) from
	 * interval `interval` (UINT32_MAX: between steps), for lost_reason
	 */
	bool lost;
	char lost_reason[256];
	/* finish lines: a worker's part of fixed work (agent is set) */
	bool finish;
	struct intervals_finish fin;
	/* the end line: how the campaign ended, when it did not complete */
	bool end;
	char end_state[16]; /* "failed" or "cancelled" */
	char end_reason[512];
	/* a mark line (marks.h): workload and step are the mark's too */
	bool mark;
	struct run_mark mk;
	/* a background line: the background's figures over step `step` of `workload` */
	bool background;
	struct intervals_bg bg;
	/* an observe line (obsline.h): workload and step are its too */
	bool obs;
	struct obs_line ob;
};

/*
 * Lines: one each, newline included, malloc'd. agent is NULL for the merged
 * line. Names are [A-Za-z0-9._-] (text_name_ok). bins false: an agent's
 * histograms go without their bins (count, sum, min and max only; agents.detail:
 * counts); the merged line always has them.
 */
char *intervals_record_line(const char *workload, uint32_t step, double offered_ops,
                            uint32_t interval, const char *agent, const struct agg_record *rec,
                            bool bins);
char *intervals_window_line(const char *workload, uint32_t step, uint32_t from, uint32_t to);
/* The cooldown before step `step`: ms long, ending `outcome` ("recovered", "timeout" or "failed").
 */
char *intervals_cooldown_line(const char *workload, uint32_t step, uint32_t ms,
                              const char *outcome);
/*
 * The step's lines so far (attempt `attempt`, from 1) are void: its client was
 * disturbed and the step runs again; `report` rebuilds it from the next attempt.
 */
char *intervals_retried_line(const char *workload, uint32_t step, uint32_t attempt);
char *intervals_clock_line(const char *workload, uint32_t step, const char *agent,
                           const struct intervals_clock *k);
char *intervals_finish_line(const char *workload, uint32_t step, const char *agent,
                            const struct intervals_finish *f);
/*
 * Agent `agent` was lost and the campaign went on without it: in step `step`, from
 * interval `interval` on (UINT32_MAX: between steps), for `reason`.
 */
char *intervals_lost_line(const char *workload, uint32_t step, const char *agent, uint32_t interval,
                          const char *reason);
/*
 * The last line of a campaign that did not complete: its state ("failed",
 * "cancelled") and why. Records after it (a resumed campaign) supersede it.
 */
char *intervals_end_line(const char *state, const char *reason);
/* The background's figures over step `step` of workload `workload` (written after its lines). */
char *intervals_background_line(const char *workload, uint32_t step, const struct intervals_bg *b);
/* What a polled source said at an interval's end (obsline.h has the line's layout). */
char *intervals_obs_line(const struct obs_line *o);
/* A mark on the timeline (marks.h has the line's layout). */
char *intervals_mark_line(const struct run_mark *m);
/*
 * Append one whole line to fd with write(2), no stdio buffer between: a line
 * is on the file whole or not at all (a part written before a failure, such
 * as a full disk, is truncated away). 0, or -1 with errno set.
 */
int intervals_write(int fd, const char *line);

/*
 * Reader: the lines of one file, in order. Each line is checked whole: its
 * format, every field present with its type, histograms and the record
 * consistent (hist_decode, record_check). Errors name the file and line
 * ("DIR/intervals.jsonl:96: ..."). A last line cut short (no newline, not
 * JSON: the writer was killed mid-line) ends the file: intervals_next returns
 * 0 and intervals_warning says so. The file must be a regular file and not a
 * symbolic link (saferead_open), and a line longer than INTERVALS_LINE_MAX is
 * refused naming file and line: a planted FIFO, /dev/zero or endless line would
 * otherwise hang the reader or grow its buffer until memory ran out.
 */
struct intervals_reader;

/*
 * The longest line read: an agent's line with all four histograms' every bin
 * (HIST_BINS pairs of index and count) is under 600 KB.
 */
#define INTERVALS_LINE_MAX (4u << 20)

struct intervals_reader *intervals_open(const char *path, struct error *err);
/*
 * 1 with *line filled, 0 at the end of the file, -1 with err set. A mix's parts in
 * line->rec.rec stay the reader's, valid until the next intervals_next or
 * intervals_close: a caller that keeps the record past that copies it (record_copy);
 * merging it (agg_add_record) copies what it needs.
 */
int intervals_next(struct intervals_reader *r, struct intervals_line *line, struct error *err);
/* The line intervals_next last read, from 1: for the caller's own complaints. */
size_t intervals_lineno(const struct intervals_reader *r);
/* "" or why the file ended early (a torn last line ignored), with file and line. */
const char *intervals_warning(const struct intervals_reader *r);
/* The byte offset just after the last whole line read. */
long intervals_offset(const struct intervals_reader *r);
void intervals_close(struct intervals_reader *r);

#endif
