/* SPDX-License-Identifier: MIT */
/* observe: the sources the coordinator polls, read and checked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observe.h"
#include "promtext.h"
#include "text.h"
#include "xalloc.h"

static const char *const observe_source_keys[] = {"name",    "url",     "series",     "every",
                                                  "timeout", "ca_file", "token_file", NULL};
static const char *const observe_series_keys[] = {"name",         "metric", "query", "limit",
                                                  "saturated_at", "unit",   NULL};

double observe_series_threshold(const struct observe_series *s)
{
	if (s->saturated_pct > 0)
		return (s->limit > 0 ? s->limit : 1.0) * s->saturated_pct / 100.0;
	return s->limit;
}

bool observe_url_split(const char *url, bool *https, char *host, size_t hostlen, uint16_t *port,
                       char *path, size_t pathlen, char *why, size_t whylen)
{
	const char *p, *h, *he, *slash;
	size_t n;

	for (p = url; *p != '\0'; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f) {
			snprintf(why, whylen, "the URL holds a blank or control character");
			return false;
		}
	if (strncmp(url, "http://", 7) == 0) {
		*https = false;
		p = url + 7;
	} else if (strncmp(url, "https://", 8) == 0) {
		*https = true;
		p = url + 8;
	} else {
		snprintf(why, whylen, "only http:// and https:// URLs are polled");
		return false;
	}
	slash = strchr(p, '/');
	he = slash != NULL ? slash : p + strlen(p);
	if (memchr(p, '@', (size_t)(he - p)) != NULL) {
		snprintf(why, whylen, "a user name or password in the URL (use token_file)");
		return false;
	}
	if (strchr(url, '#') != NULL) {
		snprintf(why, whylen, "a fragment ('#') in the URL");
		return false;
	}
	h = p;
	if (*h == '[') {
		const char *rb = memchr(h, ']', (size_t)(he - h));

		if (rb == NULL) {
			snprintf(why, whylen, "an IPv6 address without its ']'");
			return false;
		}
		n = (size_t)(rb - h - 1);
		h++;
		p = rb + 1;
	} else {
		const char *colon = memchr(h, ':', (size_t)(he - h));

		p = colon != NULL ? colon : he;
		n = (size_t)(p - h);
	}
	if (n == 0 || n >= hostlen) {
		snprintf(why, whylen, "no host in the URL");
		return false;
	}
	memcpy(host, h, n);
	host[n] = '\0';
	*port = *https ? 443 : 80;
	if (p < he && *p == ':') {
		unsigned long v = 0;

		p++;
		if (p == he) {
			snprintf(why, whylen, "an empty port in the URL");
			return false;
		}
		for (; p < he; p++) {
			if (*p < '0' || *p > '9' ||
			    (v = v * 10 + (unsigned long)(*p - '0')) > 65535) {
				snprintf(why, whylen, "the port is not a number 1..65535");
				return false;
			}
		}
		if (v == 0) {
			snprintf(why, whylen, "the port is not a number 1..65535");
			return false;
		}
		*port = (uint16_t)v;
	} else if (p != he) {
		snprintf(why, whylen, "text after the host");
		return false;
	}
	snprintf(path, pathlen, "%s", slash != NULL ? slash : "/");
	return true;
}

/* A percentage such as 95% (or 95): above 0, at most 100. */
static int observe_pct(struct yamlnode_doc *y, const yaml_node_t *n, const char *label, double *out)
{
	const char *s;
	char *end;

	if (yamlnode_string(y, n, label, &s) < 0)
		return -1;
	*out = strtod(s, &end);
	if (end == s || (*end != '\0' && strcmp(end, "%") != 0) || !(*out > 0 && *out <= 100)) {
		yamlnode_expected(y, n, label, "a share above 0% and at most 100%, such as 95%");
		return -1;
	}
	return 0;
}

static int observe_series_map(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                              struct observe_series *s)
{
	yaml_node_t *v;
	const char *str;
	char sub[256];

	if (yamlnode_check_mapping(y, n, label, label, observe_series_keys) < 0)
		return -1;
	if ((v = yamlnode_lookup(y, n, "metric")) != NULL) {
		snprintf(sub, sizeof(sub), "%s.metric", label);
		if (yamlnode_string(y, v, sub, &str) < 0)
			return -1;
		s->metric = xstrdup(str);
	}
	if ((v = yamlnode_lookup(y, n, "query")) != NULL) {
		snprintf(sub, sizeof(sub), "%s.query", label);
		if (s->metric != NULL) {
			yamlnode_error(y, v, "%s: metric or query, not both", label);
			return -1;
		}
		if (yamlnode_string(y, v, sub, &str) < 0)
			return -1;
		s->query = xstrdup(str);
	}
	if (s->metric == NULL && s->query == NULL) {
		yamlnode_error(y, n, "%s: needs metric: (an exporter's) or query: (PromQL)", label);
		return -1;
	}
	if ((v = yamlnode_lookup(y, n, "name")) != NULL) {
		snprintf(sub, sizeof(sub), "%s.name", label);
		if (yamlnode_string(y, v, sub, &str) < 0)
			return -1;
		if (!text_name_ok(str)) {
			yamlnode_expected(y, v, sub, "letters, digits, '.', '_' and '-' only");
			return -1;
		}
		s->name = xstrdup(str);
	}
	if ((v = yamlnode_lookup(y, n, "limit")) != NULL) {
		char *end;

		snprintf(sub, sizeof(sub), "%s.limit", label);
		if (yamlnode_string(y, v, sub, &str) < 0)
			return -1;
		s->limit = strtod(str, &end);
		if (end == str || *end != '\0' || !(s->limit > 0 && s->limit < 1e15)) {
			yamlnode_expected(y, v, sub,
			                  "a number above 0 (the series' value at its limit)");
			return -1;
		}
	}
	if ((v = yamlnode_lookup(y, n, "saturated_at")) != NULL) {
		snprintf(sub, sizeof(sub), "%s.saturated_at", label);
		if (observe_pct(y, v, sub, &s->saturated_pct) < 0)
			return -1;
	}
	if ((v = yamlnode_lookup(y, n, "unit")) != NULL) {
		snprintf(sub, sizeof(sub), "%s.unit", label);
		if (yamlnode_string(y, v, sub, &str) < 0)
			return -1;
		if (strlen(str) >= sizeof(s->unit) || strpbrk(str, "\"<>&\\") != NULL) {
			yamlnode_expected(y, v, sub, "a short unit such as % or MiB/s");
			return -1;
		}
		snprintf(s->unit, sizeof(s->unit), "%s", str);
	}
	return 0;
}

/* One entry of series: a selector (or a query) as written, or a mapping. */
static int observe_one_series(struct yamlnode_doc *y, const yaml_node_t *n,
                              struct observe_source *o, size_t i)
{
	struct observe_series *s = &o->series[i];
	char label[160];
	const char *what;
	struct error e = {0};
	struct promtext_selector sel;

	snprintf(label, sizeof(label), "observe '%s' series %zu", o->name, i + 1);
	if (n->type == YAML_MAPPING_NODE) {
		if (observe_series_map(y, n, label, s) < 0)
			return -1;
	} else {
		const char *str;

		if (yamlnode_string(y, n, label, &str) < 0)
			return -1;
		s->metric = xstrdup(str);
	}
	if (i > 0 && (s->query != NULL) != o->query) {
		yamlnode_error(y, n,
		               "%s: a source's series are all metric: (an exporter) or all query: "
		               "(a Prometheus server)",
		               label);
		return -1;
	}
	o->query = s->query != NULL;
	what = s->metric != NULL ? s->metric : s->query;
	if (strlen(what) > 1000) {
		yamlnode_error(y, n, "%s: longer than 1000 bytes", label);
		return -1;
	}
	if (s->metric != NULL && promtext_selector_parse(s->metric, &sel, &e) < 0) {
		yamlnode_error(y, n, "%s: %s%s", label, e.msg,
		               strchr(s->metric, '(') != NULL
		                   ? " (a PromQL expression is a query: of a Prometheus server)"
		                   : "");
		return -1;
	}
	if (s->name == NULL)
		s->name = xstrdup(what);
	for (size_t j = 0; j < i; j++)
		if (strcmp(o->series[j].name, s->name) == 0) {
			yamlnode_error(y, n, "%s: '%s' twice in the source (give one a name:)",
			               label, s->name);
			return -1;
		}
	return 0;
}

static int observe_path_key(struct yamlnode_doc *y, const yaml_node_t *map, const char *key,
                            const char *what, char **out)
{
	yaml_node_t *v = yamlnode_lookup(y, map, key);
	const char *s;
	char label[160];

	if (v == NULL)
		return 0;
	snprintf(label, sizeof(label), "%s.%s", what, key);
	if (yamlnode_string(y, v, label, &s) < 0)
		return -1;
	if (s[0] != '/') {
		yamlnode_expected(y, v, label, "an absolute path");
		return -1;
	}
	*out = xstrdup(s);
	return 0;
}

static int observe_source(struct yamlnode_doc *y, const yaml_node_t *n, struct campaign *c,
                          size_t i)
{
	struct observe_source *o = &c->observe[i];
	yaml_node_t *name, *url, *series, *v;
	const char *s;
	char what[160], host[256], path[OBSERVE_URL_MAX], why[128];
	size_t count;

	snprintf(what, sizeof(what), "observe %zu", i + 1);
	if (yamlnode_check_mapping(y, n, what, what, observe_source_keys) < 0 ||
	    yamlnode_require(y, n, "name", what, &name) < 0 ||
	    yamlnode_string(y, name, "observe.name", &s) < 0)
		return -1;
	if (!text_name_ok(s) || strlen(s) > 64) {
		yamlnode_expected(y, name, "observe.name",
		                  "up to 64 letters, digits, '.', '_' and '-'");
		return -1;
	}
	for (size_t j = 0; j < i; j++)
		if (strcmp(c->observe[j].name, s) == 0) {
			yamlnode_error(y, name, "observe: two sources named '%s'", s);
			return -1;
		}
	o->name = xstrdup(s);
	snprintf(what, sizeof(what), "observe '%s'", o->name);
	if (yamlnode_require(y, n, "url", what, &url) < 0 ||
	    yamlnode_string(y, url, "observe.url", &s) < 0)
		return -1;
	if (strlen(s) >= OBSERVE_URL_MAX) {
		yamlnode_error(y, url, "%s: the URL is longer than %d bytes", what,
		               OBSERVE_URL_MAX - 1);
		return -1;
	}
	if (!observe_url_split(s, &o->https, host, sizeof(host), &o->port, path, sizeof(path), why,
	                       sizeof(why))) {
		/* a URL with a password in it is not repeated into logs and terminals */
		if (strchr(s, '@') != NULL)
			yamlnode_error(y, url, "%s: %s", what, why);
		else
			yamlnode_error(y, url, "%s: '%s': %s", what, s, why);
		return -1;
	}
	o->url = xstrdup(s);
	o->host = xstrdup(host);
	o->path = xstrdup(path);
	if ((v = yamlnode_lookup(y, n, "every")) != NULL) {
		if (yamlnode_duration(y, v, "observe.every", &o->every_ns) < 0)
			return -1;
		if (o->every_ns < OBSERVE_EVERY_MIN || o->every_ns > OBSERVE_EVERY_MAX) {
			yamlnode_expected(y, v, "observe.every", "a duration from 100ms to 1h");
			return -1;
		}
	}
	if ((v = yamlnode_lookup(y, n, "timeout")) != NULL) {
		if (yamlnode_duration(y, v, "observe.timeout", &o->timeout_ns) < 0)
			return -1;
		if (o->timeout_ns < 10 * 1000000ull || o->timeout_ns > 60 * 1000000000ull) {
			yamlnode_expected(y, v, "observe.timeout", "a duration from 10ms to 60s");
			return -1;
		}
	}
	if (observe_path_key(y, n, "ca_file", what, &o->ca_file) < 0 ||
	    observe_path_key(y, n, "token_file", what, &o->token_file) < 0)
		return -1;
	if (o->ca_file != NULL && !o->https) {
		yamlnode_error(y, yamlnode_lookup(y, n, "ca_file"),
		               "%s: ca_file needs an https:// URL", what);
		return -1;
	}
	if (yamlnode_require(y, n, "series", what, &series) < 0)
		return -1;
	count = series->type == YAML_SEQUENCE_NODE
	            ? (size_t)(series->data.sequence.items.top - series->data.sequence.items.start)
	            : 0;
	if (count == 0 || count > OBSERVE_MAX_SERIES) {
		yamlnode_expected(y, series, "observe.series", "a list of 1 to 32 series");
		return -1;
	}
	o->series = xcalloc(count, sizeof(*o->series));
	o->nseries = count;
	for (size_t k = 0; k < count; k++)
		if (observe_one_series(y, yamlnode_get(y, series->data.sequence.items.start[k]), o,
		                       k) < 0)
			return -1;
	return 0;
}

int observe_parse(struct yamlnode_doc *y, const yaml_node_t *root, struct campaign *c)
{
	yaml_node_t *n = yamlnode_lookup(y, root, "observe");
	size_t count;

	if (n == NULL)
		return 0;
	count = n->type == YAML_SEQUENCE_NODE
	            ? (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)
	            : 0;
	if (count == 0 || count > OBSERVE_MAX_SOURCES) {
		yamlnode_expected(y, n, "observe",
		                  "a list of 1 to 16 sources such as {name: storage, url: "
		                  "http://HOST:9100/metrics, series: [...]}");
		return -1;
	}
	c->observe = xcalloc(count, sizeof(*c->observe));
	c->nobserve = count;
	for (size_t i = 0; i < count; i++)
		if (observe_source(y, yamlnode_get(y, n->data.sequence.items.start[i]), c, i) < 0)
			return -1;
	return 0;
}

void observe_free(struct observe_source *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < o[i].nseries; k++) {
			free(o[i].series[k].name);
			free(o[i].series[k].metric);
			free(o[i].series[k].query);
		}
		free(o[i].series);
		free(o[i].name);
		free(o[i].url);
		free(o[i].host);
		free(o[i].path);
		free(o[i].ca_file);
		free(o[i].token_file);
	}
	free(o);
}
