/* SPDX-License-Identifier: MIT */
/*
 * A workload's settings, one row each (as fio's option table): the campaign key, its
 * type and bounds, its default, where it lands in struct io_settings, its Prepare field,
 * the word setupdiff compares it by and the agent's cap on it. The campaign's workload
 * and the agent's io_plan hold the same struct io_settings, so the coordinator's
 * Prepare (run/prepare.c), the agent's reading of it (agent/params.c), the campaign's
 * parser (campaign/workloads.c, access.c) and setupdiff walk these rows instead of
 * copying field by field: a new scalar key is its member, its row and its Prepare field.
 */
#ifndef IOCURVE_SETTING_H
#define IOCURVE_SETTING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "iocurve.pb-c.h"
#include "mix.h"
#include "rw.h"

/* data.clone's name at most this many bytes less one (the agent's DATAGEN_CLONE_MAX). */
#define SETTING_NAME_MAX 64
/*
 * A step's bounds, the campaign's parser's and the agent's alike. The agent holds a record
 * of each interval of a step until it is delivered, so a step has at most this many
 * (warm-up and a steady extension included).
 */
#define SETTING_MAX_STEP_INTERVALS 100000u
/*
 * An interval the agent takes: at least 10 ms (each is a record of ~150 KB and a report;
 * the campaign's own floor is 100 ms) and at most an hour (a step then lasts a day at
 * most a thousand intervals in; nobody measures storage in longer strokes).
 */
#define SETTING_MIN_INTERVAL_NS (10ull * 1000 * 1000)
#define SETTING_MAX_INTERVAL_NS (3600ull * 1000 * 1000 * 1000)
/* random: zipf:THETA, above 0 and at most this (the campaign's and the agent's bound) */
#define SETTING_MAX_ZIPF_THETA 10
/* read_pct not given yet: the mix's own default applies (75 randrw, 50 rw). */
#define SETTING_READ_PCT_UNSET UINT32_MAX

/* The access distribution; the same numbers as the wire's RandomDist. */
enum access_dist {
	ACCESS_UNIFORM = 0,
	ACCESS_ZIPF,
	ACCESS_HOTSPOT,
};

/* What a workload asks of the agents' workers, and how the coordinator shows it. */
struct io_settings {
	enum rw_mode rw;
	uint32_t block_size;  /* bytes */
	uint32_t workers;     /* per agent */
	uint32_t queue_depth; /* per worker */
	uint32_t read_pct;    /* mixes: percent of reads */
	uint32_t align;       /* 0: block_size */
	uint64_t working_set; /* bytes of each target touched; 0: all of it */
	enum access_dist dist;
	double zipf_theta;
	double hot_set_pct; /* hotspot:SET/OPS */
	double hot_ops_pct;
	bool poisson; /* arrivals: poisson (else uniform) */
	uint32_t compress_pct;
	uint32_t dedupe_pct;
	/* data.clone: every file of every agent this one golden image; "": each its own */
	char clone[SETTING_NAME_MAX];
	bool direct;
	uint64_t wake_slack_ns; /* workers sleep at least this long between timed wakes */
	bool efficient; /* timing: efficient (sleep in the ring to a completion or the due time) or
	                   precise [efficient] */
	bool decimal;   /* units: decimal (MB/s, IOPS) or binary (MiB/s, ops/s); never sent */
	/* sync writes: an fsync (fdatasync) after every N writes of a worker (0: none) */
	uint32_t fsync;
	uint32_t fdatasync;
	bool dsync;      /* sync: dsync, the worker files opened O_DSYNC */
	bool background; /* runs on its own workers beside every other workload's steps */
	/*
	 * verify: crc32 or xxh64: every 4KiB block written (layout and writes) carries a
	 * header that every read checks (agent/verify.h); the wire's VerifyMethod (0: none,
	 * 1: crc32, 2: xxh64), so a test of it as a bool asks whether the workload verifies
	 */
	int verify;
	/*
	 * mix: parts interleaved in one stream, or a plain workload's size distribution
	 * (block_size: {4KiB: 60, 64KiB: 40}); block_size is then the largest block. Read
	 * by campaign/mixparse.c, sent by mix_to_prepare (common/mix.c).
	 */
	struct mix mix;
};

/* How a row's value is written in YAML and held in io_settings and in Prepare. */
enum setting_type {
	SETTING_HAND,     /* the campaign's own code reads it and keeps it outside io_settings */
	SETTING_COUNT,    /* uint32_t, a number (workers: 8) */
	SETTING_SIZE32,   /* uint32_t bytes (block_size: 4KiB), a multiple of step */
	SETTING_SIZE64,   /* uint64_t bytes (working_set: 1GiB) */
	SETTING_DURATION, /* uint64_t ns (wake_slack: 100us) */
	SETTING_BOOL,     /* bool (direct: false); an int in Prepare */
	SETTING_WORDS,    /* bool: words[0] or words[1] (arrivals: poisson); an int in Prepare */
	SETTING_ENUM,     /* an enum read by hand (rw, random): an int in both */
	SETTING_CHOICE, /* one of words[] (verify: none, crc32, xxh64): its index, an int in both */
	SETTING_REAL,   /* a double, read by hand as part of another key (random's) */
	SETTING_NAME,   /* char[SETTING_NAME_MAX] read by hand; in Prepare only when set */
};

/* The agent's own limit on a setting (agent/params.h, --max-*). */
enum setting_cap {
	SETTING_CAP_NONE = 0,
	SETTING_CAP_WORKERS,
	SETTING_CAP_QUEUE_DEPTH,
	SETTING_CAP_BLOCK_SIZE,
};

/* The words of a SETTING_CHOICE row, at most. */
#define SETTING_WORDS_MAX 4

/* A row that io_settings or Prepare does not hold. */
#define SETTING_NONE SIZE_MAX

struct setting {
	/* as a workload (or the top level, for all) writes it; NULL: part of another key's */
	const char *key;
	const char *group; /* the mapping it sits in ("data" of "data.compress"); NULL: none */
	enum setting_type type;
	uint64_t min, max; /* a number's bounds, in the campaign and on the agent (max 0: none) */
	uint32_t step;     /* a size is a multiple of it (0: any) */
	uint64_t dflt;     /* the top level's default (SETTING_HAND: unused) */
	size_t at;         /* offsetof(struct io_settings, ...), or SETTING_NONE */
	size_t wire;       /* offsetof(Iocurve__Prepare, ...), or SETTING_NONE: not sent */
	const char *label; /* what setupdiff calls it; NULL: not compared here */
	enum setting_cap cap;
	const char *cap_flag; /* the agent's flag that sets the cap: "max-queue-depth" */
	/* sizes, durations, words: what a bad value is told it should be (NULL: words[0] or [1]) */
	const char *expected;
	/* SETTING_WORDS: the false and the true word; SETTING_CHOICE: value i's word (NULL ends) */
	const char *words[SETTING_WORDS_MAX];
	/*
	 * How setupdiff shows the value (NULL: by its type); false when the setting does
	 * not apply to io (read_pct of a workload that is no mix).
	 */
	bool (*show)(const struct io_settings *io, char *buf, size_t len);
};

/* Every setting a workload takes, in the order `unknown key` messages list them. */
extern const struct setting setting_table[];
extern const size_t setting_count;

/* The row of key ("queue_depth", "data.compress"), or NULL. */
const struct setting *setting_find(const char *key);
/* Whether s is held in io_settings (not SETTING_HAND). */
static inline bool setting_held(const struct setting *s)
{
	return s->at != SETTING_NONE;
}
/* Set every held setting to its row's default. */
void setting_defaults(struct io_settings *io);
/* A number's value (counts, sizes, durations, bools, words, enums), widened. */
uint64_t setting_get(const struct setting *s, const struct io_settings *io);
/* A number's value as Prepare carries it (a bool or word as sent, before it is made one). */
uint64_t setting_wire_get(const struct setting *s, const Iocurve__Prepare *p);
/* Store a number within s's type (the caller checked the bounds). */
void setting_set(const struct setting *s, struct io_settings *io, uint64_t v);
/* Whether v is within s's bounds and step. */
bool setting_in_bounds(const struct setting *s, uint64_t v);
/*
 * The keys a mapping takes, in table order, into keys (max entries, NULL-terminated):
 * with parent NULL the top level's (data.compress counts as data, once), else the
 * keys under parent ("compress", "dedupe", "clone" for "data"). Returns their count.
 */
size_t setting_keys(const char *parent, const char **keys, size_t max);
/* The value as setupdiff writes it; false when it does not apply to io. */
bool setting_show(const struct setting *s, const struct io_settings *io, char *buf, size_t len);
/* "uniform", "zipf:1.1", "hotspot:10/90". */
void setting_dist_text(const struct io_settings *io, char *buf, size_t len);

/* Every sent setting of io into p (strings stay io's). */
void setting_to_prepare(const struct io_settings *io, Iocurve__Prepare *p);
/*
 * Every sent setting of p into io (others keep their defaults), even one out of its
 * bounds, so a cap can still name it. Returns NULL, or the first row whose value is
 * out of its bounds (a name: not one the campaign takes).
 */
const struct setting *setting_from_prepare(const Iocurve__Prepare *p, struct io_settings *io);

#endif
