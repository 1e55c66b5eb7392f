/* SPDX-License-Identifier: MIT */
/* A workload's access pattern keys: mixes, alignment, working set, distribution, data. */
#ifndef IOCURVE_ACCESS_H
#define IOCURVE_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include <stddef.h>

/* No libyaml here: campaign.h includes this, and the analysis layer campaign.h. */
struct workload;
struct yamlnode_doc;
struct yaml_node_s;

/* The keys access_parse reads; a workload or the top level (as defaults) takes them. */
#define ACCESS_KEYS                                                                                \
	"read_pct", "align", "working_set", "random", "arrivals", "data", "direct", "wake_slack",  \
	    "timing", "units"

/* data.clone's name at most this many bytes less one (the agent's DATAGEN_CLONE_MAX). */
#define ACCESS_CLONE_MAX 64

/* read_pct not given yet: the mix's own default applies (75 randrw, 50 rw). */
#define ACCESS_READ_PCT_UNSET UINT32_MAX

enum access_dist {
	ACCESS_UNIFORM = 0,
	ACCESS_ZIPF,
	ACCESS_HOTSPOT,
};

struct access {
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
	char clone[ACCESS_CLONE_MAX];
	bool direct;
	uint64_t wake_slack_ns; /* workers sleep at least this long between timed wakes */
	bool efficient; /* timing: efficient (sleep in the ring to a completion or the due time) or
	                   precise [efficient] */
	bool decimal;   /* units: decimal (MB/s of 10^6 bytes, IOPS) or binary (MiB/s, ops/s) */
};

/*
 * Read whichever ACCESS_KEYS map holds into a (keys that are absent keep a's
 * values). A list under read_pct is left alone: it makes a workload matrix.
 */
int access_parse(struct yamlnode_doc *y, const struct yaml_node_s *map, struct access *a);
/* One read_pct value (0..100): the matrix reads its list entries one by one. */
int access_read_pct(struct yamlnode_doc *y, const struct yaml_node_s *n, struct access *a);
/*
 * Where data.clone was given for a workload (its own data, else the top level's, as
 * the defaults are inherited): the value's node, or NULL.
 */
const struct yaml_node_s *access_clone_node(struct yamlnode_doc *y, const struct yaml_node_s *root,
                                            const struct yaml_node_s *node);
/* "uniform", "zipf:1.1", "hotspot:10/90". */
void access_dist_text(const struct access *a, char *buf, size_t len);

#endif
