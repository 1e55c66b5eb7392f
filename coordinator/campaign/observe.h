/* SPDX-License-Identifier: MIT */
/*
 * observe: the storage's own figures beside the curve. A list of sources, each an
 * exporter's /metrics (series are selectors: `node_disk_io_time_seconds_total{device="vda"}`)
 * or a Prometheus server (series are `query:` PromQL, evaluated at each interval's
 * end through /api/v1/query); the coordinator polls them (run/observe.c), never the
 * agents. A series may carry a limit (`limit: 100`) or a saturation point
 * (`saturated_at: 95%`, of its limit or, without one, of 1: a busy share), which
 * names the storage's bottleneck (render/observed.c).
 */
#ifndef IOCURVE_OBSERVE_H
#define IOCURVE_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "campaign_def.h"
#include "yamlnode.h"

#define OBSERVE_MAX_SOURCES 16
#define OBSERVE_MAX_SERIES  32
#define OBSERVE_URL_MAX     1024
#define OBSERVE_EVERY_MIN   (100 * 1000000ull) /* 100ms */
#define OBSERVE_EVERY_MAX   (3600 * 1000000000ull)

struct observe_series {
	char *name;           /* its key in results: SOURCE/NAME [the metric or query as written] */
	char *metric;         /* an exporter's: a selector (promtext.h); or */
	char *query;          /* a Prometheus server's: PromQL */
	double limit;         /* > 0: the value at which the resource is at its limit */
	double saturated_pct; /* > 0: saturated from this % of limit (of 1 without a limit) */
	char unit[16];        /* for the reader: "%", "MiB/s", "" */
};

struct observe_source {
	char *name;
	char *url; /* as written (after ${NAME} expansion) */
	bool https;
	char *host; /* a name, an IPv4 address or an IPv6 one without its brackets */
	uint16_t port;
	char *path;          /* the URL's path and query, from '/' */
	uint64_t every_ns;   /* poll at interval ends at least this far apart; 0: every interval */
	uint64_t timeout_ns; /* a poll's deadline; 0: half of every (or the interval), at most 5s */
	char *ca_file;       /* https: the CA that signs the source [the system's] */
	char *token_file;    /* a bearer token is read from it at the start; never written */
	struct observe_series *series;
	size_t nseries;
	bool query; /* its series are query: (a Prometheus server) */
};

/* The threshold at which series s is at its limit; 0: none. */
double observe_series_threshold(const struct observe_series *s);

/* Read root's observe: (absent: none) into c->observe. */
int observe_parse(struct yamlnode_doc *y, const yaml_node_t *root, struct campaign *c);
void observe_free(struct observe_source *o, size_t n);

/*
 * Split an http:// or https:// URL into its parts (host, port, path): false with why
 * (a scheme other than http or https, userinfo, a fragment, a blank or control character).
 */
bool observe_url_split(const char *url, bool *https, char *host, size_t hostlen, uint16_t *port,
                       char *path, size_t pathlen, char *why, size_t whylen);

#endif
