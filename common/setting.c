/* SPDX-License-Identifier: MIT */
/* A workload's settings, one row each, and the walks over them both programs share. */
#include <stdio.h>
#include <string.h>

#include "setting.h"
#include "text.h"
#include "units.h"

/* Enums and bools travel as ints: each side's must be as wide. */
_Static_assert(sizeof(enum rw_mode) == sizeof(int), "rw_mode");
_Static_assert(sizeof(enum access_dist) == sizeof(int), "access_dist");
_Static_assert(sizeof(Iocurve__RwMode) == sizeof(int), "RwMode");
_Static_assert(sizeof(Iocurve__RandomDist) == sizeof(int), "RandomDist");
_Static_assert(sizeof(Iocurve__Timing) == sizeof(int), "Timing");
_Static_assert(sizeof(protobuf_c_boolean) == sizeof(int), "protobuf_c_boolean");
/* The campaign's enums travel as their numbers: they must stay the protocol's. */
_Static_assert((int)ACCESS_UNIFORM == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_UNIFORM,
               "access_dist");
_Static_assert((int)ACCESS_ZIPF == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_ZIPF, "access_dist");
_Static_assert((int)ACCESS_HOTSPOT == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_HOTSPOT,
               "access_dist");
_Static_assert((int)IOCURVE__TIMING__TIMING_EFFICIENT == 1, "timing: efficient is true");

static bool setting_show_rw(const struct io_settings *io, char *buf, size_t len)
{
	snprintf(buf, len, "%s", rw_mode_name(io->rw));
	return true;
}

/* A share of reads means something only in a mix. */
static bool setting_show_read_pct(const struct io_settings *io, char *buf, size_t len)
{
	snprintf(buf, len, "%u", io->read_pct);
	return rw_is_mix(io->rw);
}

static bool setting_show_random(const struct io_settings *io, char *buf, size_t len)
{
	setting_dist_text(io, buf, len);
	return true;
}

/* align is compared as the number of bytes it has always been shown as. */
static bool setting_show_align(const struct io_settings *io, char *buf, size_t len)
{
	snprintf(buf, len, "%u", io->align);
	return true;
}

#define AT(m)   offsetof(struct io_settings, m)
#define WIRE(f) offsetof(Iocurve__Prepare, f)
#define NONE    SETTING_NONE
/* A key the campaign's own code reads and keeps in struct workload: listed for the parser. */
#define HAND(k)                                                                                    \
	{                                                                                          \
		.key = k, .type = SETTING_HAND, .at = NONE, .wire = NONE                           \
	}
#define SIZE_16M       (16u << 20)
#define BLOCK_EXPECTED "a multiple of 512B up to 16MiB"

/* In the order `unknown key` messages list them, which is the order they are read in. */
const struct setting setting_table[] = {
    {.key = "rw",
     .type = SETTING_ENUM,
     .max = RW_MODE_COUNT - 1,
     .dflt = RW_RANDREAD,
     .at = AT(rw),
     .wire = WIRE(rw),
     .label = "rw",
     .show = setting_show_rw},
    /* O_DIRECT needs sector-aligned blocks; 16MiB bounds the buffers */
    {.key = "block_size",
     .type = SETTING_SIZE32,
     .min = 1,
     .max = SIZE_16M,
     .step = 512,
     .dflt = 4096,
     .at = AT(block_size),
     .wire = WIRE(block_size),
     .label = "block_size",
     .cap = SETTING_CAP_BLOCK_SIZE,
     .cap_flag = "max-block-size",
     .expected = BLOCK_EXPECTED},
    {.key = "workers",
     .type = SETTING_COUNT,
     .min = 1,
     .max = 256,
     .dflt = 1,
     .at = AT(workers),
     .wire = WIRE(workers),
     .label = "workers",
     .cap = SETTING_CAP_WORKERS,
     .cap_flag = "max-workers"},
    {.key = "queue_depth",
     .type = SETTING_COUNT,
     .min = 1,
     .max = 4096,
     .dflt = 16,
     .at = AT(queue_depth),
     .wire = WIRE(queue_depth),
     .label = "queue_depth",
     .cap = SETTING_CAP_QUEUE_DEPTH,
     .cap_flag = "max-queue-depth"},
    HAND("interval"),
    HAND("warmup"),
    HAND("measure"),
    /* the default is the mix's (workloads.c): 0 is what an agent may be sent for no mix */
    {.key = "read_pct",
     .type = SETTING_COUNT,
     .max = 100,
     .at = AT(read_pct),
     .wire = WIRE(read_pct),
     .label = "read_pct",
     .show = setting_show_read_pct},
    /* 0 (not given) is block_size; O_DIRECT needs sector-aligned offsets */
    {.key = "align",
     .type = SETTING_SIZE32,
     .min = 1,
     .max = SIZE_16M,
     .step = 512,
     .at = AT(align),
     .wire = WIRE(align),
     .label = "align",
     .expected = BLOCK_EXPECTED,
     .show = setting_show_align},
    /* 0 (not given) is all of the target */
    {.key = "working_set",
     .type = SETTING_SIZE64,
     .min = 1,
     .at = AT(working_set),
     .wire = WIRE(working_set),
     .label = "working_set",
     .expected = "a size above 0 (e.g. 1GiB)"},
    {.key = "random",
     .type = SETTING_ENUM,
     .max = ACCESS_HOTSPOT,
     .at = AT(dist),
     .wire = WIRE(random),
     .label = "random",
     .show = setting_show_random},
    {.type = SETTING_REAL, .at = AT(zipf_theta), .wire = WIRE(zipf_theta)},
    {.type = SETTING_REAL, .at = AT(hot_set_pct), .wire = WIRE(hot_set_pct)},
    {.type = SETTING_REAL, .at = AT(hot_ops_pct), .wire = WIRE(hot_ops_pct)},
    {.key = "arrivals",
     .type = SETTING_WORDS,
     .max = 1,
     .at = AT(poisson),
     .wire = WIRE(poisson),
     .label = "arrivals",
     .words = {"uniform", "poisson"}},
    {.key = "data.compress",
     .group = "data",
     .type = SETTING_COUNT,
     .max = 99,
     .at = AT(compress_pct),
     .wire = WIRE(compress_pct),
     .label = "data.compress"},
    {.key = "data.dedupe",
     .group = "data",
     .type = SETTING_COUNT,
     .max = 99,
     .at = AT(dedupe_pct),
     .wire = WIRE(dedupe_pct),
     .label = "data.dedupe"},
    /* sent only to agents with CAPABILITY_CLONE (run/prepare.c refuses the others) */
    {.key = "data.clone",
     .group = "data",
     .type = SETTING_NAME,
     .at = AT(clone),
     .wire = WIRE(clone),
     .label = "data.clone"},
    /* the default is the target's (workloads.c) */
    {.key = "direct",
     .type = SETTING_BOOL,
     .at = AT(direct),
     .wire = WIRE(direct),
     .label = "direct"},
    /* beyond a millisecond it is no longer a rate, it is bursts */
    {.key = "wake_slack",
     .type = SETTING_DURATION,
     .max = 1000000,
     .at = AT(wake_slack_ns),
     .wire = WIRE(wake_slack_ns),
     .label = "wake_slack",
     .expected = "a duration up to 1ms (e.g. 100us)"},
    {.key = "timing",
     .type = SETTING_WORDS,
     .max = 1,
     .dflt = 1,
     .at = AT(efficient),
     .wire = WIRE(timing),
     .label = "timing",
     .words = {"precise", "efficient"}},
    /* how the coordinator shows rates: the workers never see it */
    {.key = "units",
     .type = SETTING_WORDS,
     .max = 1,
     .at = AT(decimal),
     .wire = NONE,
     .words = {"binary", "decimal"},
     .expected = "binary (MiB/s, ops/s) or decimal (MB/s, IOPS, as IOmeter shows them)"},
    HAND("steady"),
    HAND("retry"),
    HAND("load"),
    /* replay: {file, format}: read per workload by workloads.c, sent as operations */
    HAND("replay"),
    /*
     * Sync writes (CAPABILITY_SYNC: run/prepare.c refuses agents without it): fio's
     * fsync and fdatasync, an io_uring fsync after every N writes (0: none).
     */
    {.key = "fsync",
     .type = SETTING_COUNT,
     .max = 1000000,
     .at = AT(fsync),
     .wire = WIRE(fsync),
     .label = "fsync"},
    {.key = "fdatasync",
     .type = SETTING_COUNT,
     .max = 1000000,
     .at = AT(fdatasync),
     .wire = WIRE(fdatasync),
     .label = "fdatasync"},
    {.key = "sync",
     .type = SETTING_WORDS,
     .max = 1,
     .at = AT(dsync),
     .wire = WIRE(dsync),
     .label = "sync",
     .words = {"none", "dsync"}},
    /* load under load: the agents keep this workload's workers beside the others' */
    {.key = "background",
     .type = SETTING_BOOL,
     .at = AT(background),
     .wire = WIRE(background),
     .label = "background"},
    /*
     * data checked on every read: the words are the wire's VerifyMethod (none 0, crc32 1,
     * xxh64 2); max bounds what an agent takes from a Prepare
     */
    {.key = "verify",
     .type = SETTING_CHOICE,
     .max = 2,
     .at = AT(verify),
     .wire = WIRE(verify),
     .label = "verify",
     .words = {"none", "crc32", "xxh64"},
     .expected = "none, crc32 (zlib's crc32 of each 4KiB block) or xxh64 (libxxhash's XXH64), "
                 "checked on every read"},
    /* parts of one stream (campaign/mixparse.c; on the wire: common/mix.c) */
    HAND("mix"),
    /* file workloads (campaign/fileparse.c; on the wire: common/mix.c) */
    HAND("fileset"),
    HAND("op"),
};
#undef AT
#undef WIRE
#undef NONE
#undef HAND
#undef SIZE_16M
#undef BLOCK_EXPECTED
const size_t setting_count = sizeof(setting_table) / sizeof(setting_table[0]);

const struct setting *setting_find(const char *key)
{
	for (size_t i = 0; i < setting_count; i++)
		if (setting_table[i].key != NULL && strcmp(setting_table[i].key, key) == 0)
			return &setting_table[i];
	return NULL;
}

static void *setting_ptr(const struct setting *s, const struct io_settings *io)
{
	return (char *)io + s->at;
}

static void *setting_wire_ptr(const struct setting *s, const Iocurve__Prepare *p)
{
	return (char *)p + s->wire;
}

/* How a number is stored: io_settings holds bools as bool, Prepare as an int. */
enum setting_width {
	SETTING_W_NONE,
	SETTING_W_U32,
	SETTING_W_U64,
	SETTING_W_BOOL,
	SETTING_W_INT,
};

static enum setting_width setting_width_of(enum setting_type t, bool wire)
{
	switch (t) {
	case SETTING_COUNT:
	case SETTING_SIZE32:
		return SETTING_W_U32;
	case SETTING_SIZE64:
	case SETTING_DURATION:
		return SETTING_W_U64;
	case SETTING_BOOL:
	case SETTING_WORDS:
		return wire ? SETTING_W_INT : SETTING_W_BOOL;
	case SETTING_ENUM:
	case SETTING_CHOICE:
		return SETTING_W_INT;
	default:
		return SETTING_W_NONE;
	}
}

static uint64_t setting_load(const void *p, enum setting_width w)
{
	switch (w) {
	case SETTING_W_U32:
		return *(const uint32_t *)p;
	case SETTING_W_U64:
		return *(const uint64_t *)p;
	case SETTING_W_BOOL:
		return *(const bool *)p;
	case SETTING_W_INT:
		return (unsigned)*(const int *)p;
	default:
		return 0;
	}
}

static void setting_store(void *p, enum setting_width w, uint64_t v)
{
	switch (w) {
	case SETTING_W_U32:
		*(uint32_t *)p = (uint32_t)v;
		break;
	case SETTING_W_U64:
		*(uint64_t *)p = v;
		break;
	case SETTING_W_BOOL:
		*(bool *)p = v != 0;
		break;
	case SETTING_W_INT:
		*(int *)p = (int)v;
		break;
	default:
		break;
	}
}

uint64_t setting_get(const struct setting *s, const struct io_settings *io)
{
	return setting_load(setting_ptr(s, io), setting_width_of(s->type, false));
}

uint64_t setting_wire_get(const struct setting *s, const Iocurve__Prepare *p)
{
	return setting_load(setting_wire_ptr(s, p), setting_width_of(s->type, true));
}

void setting_set(const struct setting *s, struct io_settings *io, uint64_t v)
{
	setting_store(setting_ptr(s, io), setting_width_of(s->type, false), v);
}

bool setting_in_bounds(const struct setting *s, uint64_t v)
{
	return v >= s->min && (s->max == 0 || v <= s->max) && (s->step == 0 || v % s->step == 0);
}

void setting_defaults(struct io_settings *io)
{
	memset(io, 0, sizeof(*io));
	for (size_t i = 0; i < setting_count; i++)
		if (setting_held(&setting_table[i]))
			setting_set(&setting_table[i], io, setting_table[i].dflt);
}

size_t setting_keys(const char *parent, const char **keys, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < setting_count && n + 1 < max; i++) {
		const struct setting *s = &setting_table[i];
		const char *k;

		if (s->key == NULL)
			continue;
		if (parent == NULL)
			k = s->group != NULL ? s->group : s->key;
		else if (s->group != NULL && strcmp(s->group, parent) == 0)
			k = s->key + strlen(s->group) + 1;
		else
			continue;
		if (n > 0 && strcmp(keys[n - 1], k) == 0)
			continue; /* a group's keys are rows in a row */
		keys[n++] = k;
	}
	keys[n] = NULL;
	return n;
}

bool setting_show(const struct setting *s, const struct io_settings *io, char *buf, size_t len)
{
	uint64_t v = setting_get(s, io);

	if (s->show != NULL)
		return s->show(io, buf, len);
	switch (s->type) {
	case SETTING_SIZE32:
	case SETTING_SIZE64:
		units_format_size(v, buf, len);
		break;
	case SETTING_DURATION:
		units_format_duration(v, buf, len);
		break;
	case SETTING_BOOL:
		snprintf(buf, len, "%s", v ? "true" : "false");
		break;
	case SETTING_WORDS:
		snprintf(buf, len, "%s", s->words[v != 0]);
		break;
	case SETTING_CHOICE:
		snprintf(buf, len, "%s",
		         v < SETTING_WORDS_MAX && s->words[v] != NULL ? s->words[v] : "?");
		break;
	case SETTING_NAME:
		snprintf(buf, len, "%s", (const char *)setting_ptr(s, io));
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)v);
		break;
	}
	return true;
}

void setting_dist_text(const struct io_settings *io, char *buf, size_t len)
{
	switch (io->dist) {
	case ACCESS_ZIPF:
		snprintf(buf, len, "zipf:%g", io->zipf_theta);
		break;
	case ACCESS_HOTSPOT:
		snprintf(buf, len, "hotspot:%g/%g", io->hot_set_pct, io->hot_ops_pct);
		break;
	default:
		snprintf(buf, len, "uniform");
		break;
	}
}

void setting_to_prepare(const struct io_settings *io, Iocurve__Prepare *p)
{
	for (size_t i = 0; i < setting_count; i++) {
		const struct setting *s = &setting_table[i];
		void *f;

		/* no wire field: no pointer is formed for it (SETTING_NONE is no offset) */
		if (!setting_held(s) || s->wire == SETTING_NONE)
			continue;
		f = setting_wire_ptr(s, p);
		if (s->type == SETTING_REAL)
			*(double *)f = *(const double *)setting_ptr(s, io);
		else if (s->type != SETTING_NAME)
			setting_store(f, setting_width_of(s->type, true), setting_get(s, io));
		else if (*(const char *)setting_ptr(s, io) != '\0')
			/* "" stays the message's default: an older agent sees no field */
			*(char **)f = (char *)setting_ptr(s, io);
	}
}

/* A name as the campaign takes it, into io (NULL or "": none). */
static bool setting_name_from(const struct setting *s, const char *name, struct io_settings *io)
{
	char *dst = setting_ptr(s, io);

	if (name == NULL || name[0] == '\0')
		return true;
	if (!text_name_ok(name) || strlen(name) >= SETTING_NAME_MAX)
		return false;
	snprintf(dst, SETTING_NAME_MAX, "%s", name);
	return true;
}

const struct setting *setting_from_prepare(const Iocurve__Prepare *p, struct io_settings *io)
{
	const struct setting *bad = NULL;

	setting_defaults(io);
	for (size_t i = 0; i < setting_count; i++) {
		const struct setting *s = &setting_table[i];
		const void *f;
		uint64_t v;

		if (!setting_held(s) || s->wire == SETTING_NONE)
			continue;
		f = setting_wire_ptr(s, p);
		if (s->type == SETTING_REAL) {
			*(double *)setting_ptr(s, io) = *(const double *)f;
			continue;
		}
		if (s->type == SETTING_NAME) {
			if (!setting_name_from(s, *(char *const *)f, io) && bad == NULL)
				bad = s;
			continue;
		}
		v = setting_load(f, setting_width_of(s->type, true));
		/* the default (0: not given, for align and working_set) is always taken */
		if (v != s->dflt && !setting_in_bounds(s, v) && bad == NULL)
			bad = s;
		setting_set(s, io, v);
	}
	return bad;
}
