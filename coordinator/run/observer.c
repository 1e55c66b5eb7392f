/* SPDX-License-Identifier: MIT */
/* Polling observe: sources at a step's interval ends (observer.h). */
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/dns.h>
#include <jansson.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "clock.h"
#include "httpclient.h"
#include "log.h"
#include "observe.h"
#include "observer.h"
#include "promtext.h"
#include "saferead.h"
#include "xalloc.h"

#define OBSERVER_BASELINE UINT32_MAX /* a round at the step's start: no line */

struct observer_round;
struct observer_reqarg {
	struct observer_round *r;
	size_t k;
};

struct observer_series {
	struct promtext_selector sel;
	bool prev_has; /* a counter's value at prev_ns, to take a rate from */
	double prev_v;
	uint64_t prev_ns;
};

/* One poll of a source: one request (an exporter) or one per series (queries). */
struct observer_round {
	struct observer_src *src;
	uint32_t interval; /* OBSERVER_BASELINE: the step's start */
	uint64_t sent_ns;
	size_t out; /* requests not yet answered */
	struct httpc **reqs;
	struct observer_reqarg *args; /* each request's callback argument */
	struct obs_line line;
	bool busy;
};

struct observer_src {
	struct observer *o;
	const struct observe_source *cfg;
	struct observer_series *series;
	SSL_CTX *ssl;
	char *token;
	char *query_path; /* query sources: the URL's path up to /api/v1/query */
	uint64_t timeout_ns;
	uint64_t last_ns; /* when it was last asked */
	struct observer_round round;
	bool noted; /* a note about its answers logged once */
};

struct observer {
	struct event_base *base;
	struct evdns_base *dns;
	observer_line_fn fn;
	void *arg;
	struct observer_src *srcs;
	size_t n;
	struct event *tick;
	char workload[OBS_NAME_MAX];
	uint32_t step;
	uint64_t start_ns, interval_ns;
	uint32_t nintervals;
	uint32_t next; /* the next boundary: 0 the start, k the end of interval k - 1 */
	bool running;
	void (*idle_fn)(void *);
	void *idle_arg;
};

static void observer_check_idle(struct observer *o);

static char *observer_token(const char *path, struct error *err)
{
	size_t len;
	char *t = saferead_all(AT_FDCWD, NULL, path, OBSERVER_TOKEN_MAX, 0, &len, err);

	if (t == NULL) {
		error_prefix(err, "observe: token_file: ");
		return NULL;
	}
	while (len > 0 && (t[len - 1] == '\n' || t[len - 1] == '\r' || t[len - 1] == ' '))
		t[--len] = '\0';
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)t[i] <= ' ' || t[i] == 0x7f) {
			error_set(err,
			          "observe: token_file %s: the token holds a blank or control "
			          "character",
			          path);
			free(t);
			return NULL;
		}
	if (len == 0) {
		error_set(err, "observe: token_file %s is empty", path);
		free(t);
		return NULL;
	}
	return t;
}

/*
 * The campaign's CA file into ctx's store, read as every file a campaign names is
 * (saferead: a regular file of ours, bounded; a FIFO there once held the coordinator in
 * open(2) for good): each PEM certificate in it, one at least.
 */
static int observer_load_ca(SSL_CTX *ctx, const struct observe_source *cfg, struct error *err)
{
	size_t len, n = 0;
	char *pem = saferead_all(AT_FDCWD, NULL, cfg->ca_file, OBSERVER_CA_MAX, 0, &len, err);
	BIO *bio;
	X509 *x;

	if (pem == NULL) {
		error_prefix(err, "observe '%s': ca_file: ", cfg->name);
		return -1;
	}
	bio = BIO_new_mem_buf(pem, (int)len);
	while (bio != NULL && (x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), x) == 1)
			n++;
		X509_free(x);
	}
	ERR_clear_error();
	BIO_free(bio);
	free(pem);
	if (n == 0) {
		error_set(err, "observe '%s': ca_file %s holds no PEM certificate", cfg->name,
		          cfg->ca_file);
		return -1;
	}
	return 0;
}

static SSL_CTX *observer_ssl(const struct observe_source *cfg, struct error *err)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (ctx == NULL) {
		error_set(err, "observe '%s': no TLS context", cfg->name);
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if (cfg->ca_file != NULL) {
		if (observer_load_ca(ctx, cfg, err) < 0) {
			SSL_CTX_free(ctx);
			return NULL;
		}
	} else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
		error_set(err, "observe '%s': cannot load the system's CA certificates", cfg->name);
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

struct observer *observer_new(struct event_base *base, const struct campaign *c,
                              observer_line_fn fn, void *arg, struct error *err)
{
	struct observer *o = xcalloc(1, sizeof(*o));

	o->base = base;
	o->fn = fn;
	o->arg = arg;
	/* o->n counts the sources made so far: a failure frees those and no other */
	o->srcs = xcalloc(c->nobserve ? c->nobserve : 1, sizeof(*o->srcs));
	o->dns = evdns_base_new(base, EVDNS_BASE_INITIALIZE_NAMESERVERS);
	o->tick = evtimer_new(base, NULL, NULL);
	for (size_t i = 0; i < c->nobserve; i++) {
		struct observer_src *s = &o->srcs[i];
		const struct observe_source *cfg = &c->observe[i];

		o->n = i + 1;
		s->o = o;
		s->cfg = cfg;
		s->round.src = s;
		s->series = xcalloc(cfg->nseries, sizeof(*s->series));
		s->round.reqs = xcalloc(cfg->nseries, sizeof(*s->round.reqs));
		s->round.args = xcalloc(cfg->nseries, sizeof(*s->round.args));
		for (size_t k = 0; k < cfg->nseries; k++)
			if (cfg->series[k].metric != NULL &&
			    promtext_selector_parse(cfg->series[k].metric, &s->series[k].sel, err) <
			        0)
				goto fail;
		if (cfg->https && (s->ssl = observer_ssl(cfg, err)) == NULL)
			goto fail;
		if (cfg->token_file != NULL &&
		    (s->token = observer_token(cfg->token_file, err)) == NULL)
			goto fail;
		if (cfg->query) {
			size_t n = strlen(cfg->path);
			const char *q = strchr(cfg->path, '?');

			if (q != NULL)
				n = (size_t)(q - cfg->path);
			while (n > 0 && cfg->path[n - 1] == '/')
				n--;
			s->query_path = xasprintf("%.*s/api/v1/query", (int)n, cfg->path);
		}
	}
	return o;
fail:
	observer_free(o);
	return NULL;
}

/* Percent-encoding of a query parameter's value. */
static void observer_encode(const char *s, char *out, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s != '\0' && n + 4 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~') {
			out[n++] = (char)c;
		} else {
			out[n++] = '%';
			out[n++] = hex[c >> 4];
			out[n++] = hex[c & 15];
		}
	}
	out[n] = '\0';
}

bool observer_query_value(const char *body, size_t len, double *out, char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr), *data, *res;
	const char *status;
	size_t count = 0;
	double sum = 0;
	bool ok = false;

	if (root == NULL) {
		snprintf(why, whylen, "the answer is not JSON (%s)", jerr.text);
		return false;
	}
	status = json_string_value(json_object_get(root, "status"));
	data = json_object_get(root, "data");
	res = json_object_get(data, "result");
	if (status == NULL || strcmp(status, "success") != 0 || res == NULL) {
		const char *e = json_string_value(json_object_get(root, "error"));

		snprintf(why, whylen, "the query failed: %.120s", e != NULL ? e : "no result");
		goto done;
	}
	/* a scalar is [time, "value"]; a vector [{metric, value: [time, "value"]}, ...] */
	if (json_is_array(res) && json_array_size(res) == 2 &&
	    json_is_string(json_array_get(res, 1))) {
		res = json_pack("[{s:O}]", "value", res);
	} else {
		json_incref(res);
	}
	for (size_t i = 0; json_is_array(res) && i < json_array_size(res); i++) {
		json_t *v = json_object_get(json_array_get(res, i), "value");
		const char *s = json_string_value(json_array_get(v, 1));
		double d;

		if (s == NULL || !promtext_float(s, strlen(s), &d)) {
			snprintf(why, whylen, "sample %zu of the answer has no value", i + 1);
			json_decref(res);
			goto done;
		}
		if (!isfinite(d) || fabs(d) > PROMTEXT_VALUE_MAX) {
			snprintf(why, whylen, "value %.40s refused (%s)", s,
			         isfinite(d) ? "over 1e15" : "not finite");
			json_decref(res);
			goto done;
		}
		/* bounded as each sample is: 380,000 samples of 9e14 once summed to 3.4e20 */
		if (fabs(sum + d) > PROMTEXT_VALUE_MAX) {
			snprintf(why, whylen, "the sum of %zu samples is over 1e15", count + 1);
			json_decref(res);
			goto done;
		}
		sum += d;
		count++;
	}
	json_decref(res);
	if (count == 0) {
		snprintf(why, whylen, "the query gave no sample");
		goto done;
	}
	*out = sum;
	ok = true;
done:
	json_decref(root);
	return ok;
}

/* The round's line, once every request of it ended: to the runner, unless a baseline. */
static void observer_round_end(struct observer_round *r)
{
	struct observer_src *s = r->src;

	r->busy = false;
	if (r->interval != OBSERVER_BASELINE) {
		if (r->line.late[0] != '\0')
			log_warn("observe %s: no answer at interval %u (%s)", s->cfg->name,
			         r->interval + 1, r->line.late);
		if (r->line.note[0] != '\0' && !s->noted) {
			s->noted = true;
			log_warn("observe %s: %s", s->cfg->name, r->line.note);
		}
		s->o->fn(s->o->arg, &r->line);
	}
	observer_check_idle(s->o);
}

static void observer_note(struct obs_line *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void observer_note(struct obs_line *l, const char *fmt, ...)
{
	size_t n = strlen(l->note);
	va_list ap;

	/* each kind of trouble once, as long as the line has room; the log has the first */
	if (n + 3 >= sizeof(l->note))
		return;
	if (n > 0) {
		memcpy(l->note + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(l->note + n, sizeof(l->note) - n, fmt, ap);
	va_end(ap);
}

/* A page's value for series k into the line (a counter's as a rate since the last poll). */
static void observer_take(struct observer_round *r, size_t k, double v, uint64_t at_ns)
{
	struct observer_series *se = &r->src->series[k];
	struct obs_value *ov = &r->line.values[k];

	ov->has = false;
	if (r->src->cfg->query) {
		ov->has = true;
		ov->v = v;
		return;
	}
	if (!se->prev_has || at_ns <= se->prev_ns || v < se->prev_v) {
		if (se->prev_has && v < se->prev_v)
			observer_note(&r->line, "%s: the counter went back (reset): no rate",
			              r->src->cfg->series[k].name);
	} else {
		ov->has = true;
		ov->v = (v - se->prev_v) / ((double)(at_ns - se->prev_ns) / 1e9);
	}
	se->prev_has = true;
	se->prev_v = v;
	se->prev_ns = at_ns;
}

/* An exporter's page: each series found in it. */
static void observer_page(struct observer_round *r, const char *body, size_t len, uint64_t at_ns)
{
	struct observer_src *s = r->src;

	for (size_t k = 0; k < s->cfg->nseries; k++) {
		struct promtext_result pr;
		struct obs_value *ov = &r->line.values[k];

		promtext_scan(body, len, &s->series[k].sel, &pr);
		if (pr.bad_lines > 0 && k == 0)
			observer_note(&r->line,
			              "line %zu of the answer skipped: %s (%zu lines in all)",
			              pr.bad_line, pr.bad_why, pr.bad_lines);
		if (pr.refused > 0)
			observer_note(&r->line, "%s", pr.refused_why);
		if (pr.matched == 0) {
			ov->has = false;
			s->series[k].prev_has = false;
			if (pr.refused == 0)
				observer_note(&r->line, "%s: not in the answer",
				              s->cfg->series[k].name);
			continue;
		}
		if (pr.counter) {
			observer_take(r, k, pr.value, at_ns);
		} else {
			ov->has = true;
			ov->v = pr.value;
		}
	}
}

static void observer_answer(const struct httpc_result *res, void *arg)
{
	struct observer_reqarg *a = arg;
	struct observer_round *r = a->r;
	struct observer_src *s = r->src;
	size_t k = a->k;
	char why[OBS_WHY_MAX];

	r->reqs[k] = NULL;
	if (res->status != 200) {
		if (r->line.late[0] == '\0')
			snprintf(r->line.late, sizeof(r->line.late), "%s", res->why);
		if (!s->cfg->query)
			for (size_t i = 0; i < s->cfg->nseries; i++)
				s->series[i].prev_has = false; /* the next rate needs a new base */
	} else if (s->cfg->query) {
		double v;

		if (observer_query_value(res->body, res->len, &v, why, sizeof(why)))
			observer_take(r, k, v, 0);
		else
			observer_note(&r->line, "%s: %s", s->cfg->series[k].name, why);
	} else {
		/* the exporter read its counters about when it began to answer */
		uint64_t at =
		    res->first_ns ? r->sent_ns + (res->first_ns - r->sent_ns) / 2 : clock_now_ns();

		observer_page(r, res->body, res->len, at);
	}
	if (--r->out == 0)
		observer_round_end(r);
}

static uint64_t observer_timeout(const struct observer_src *s, uint64_t interval_ns)
{
	uint64_t every = s->cfg->every_ns ? s->cfg->every_ns : interval_ns, t;

	if (s->cfg->timeout_ns)
		return s->cfg->timeout_ns;
	t = every / 2;
	return t > OBSERVER_TIMEOUT_MAX ? OBSERVER_TIMEOUT_MAX : t < 10000000 ? 10000000 : t;
}

/* Ask source s now for boundary `interval` (OBSERVER_BASELINE: the start). */
static void observer_ask(struct observer_src *s, uint32_t interval)
{
	struct observer *o = s->o;
	struct observer_round *r = &s->round;
	const struct observe_source *cfg = s->cfg;
	struct timespec now;
	size_t nreq;

	if (r->busy) {
		/* the poll before has not ended: this one is late before it starts */
		if (interval != OBSERVER_BASELINE) {
			struct obs_line l = r->line;

			l.interval = interval;
			snprintf(l.late, sizeof(l.late), "the poll before it was still out");
			l.note[0] = '\0';
			for (size_t k = 0; k < l.n; k++)
				l.values[k].has = false;
			log_warn("observe %s: no answer at interval %u (%s)", cfg->name,
			         interval + 1, l.late);
			o->fn(o->arg, &l);
		}
		return;
	}
	if (interval == OBSERVER_BASELINE && cfg->query)
		return; /* a query's value needs no base */
	memset(&r->line, 0, sizeof(r->line));
	snprintf(r->line.workload, sizeof(r->line.workload), "%s", o->workload);
	snprintf(r->line.source, sizeof(r->line.source), "%s", cfg->name);
	r->line.step = o->step;
	r->line.interval = interval;
	r->line.n = cfg->nseries;
	for (size_t k = 0; k < cfg->nseries; k++)
		snprintf(r->line.values[k].series, sizeof(r->line.values[k].series), "%s",
		         cfg->series[k].name);
	r->interval = interval;
	r->busy = true;
	r->sent_ns = clock_now_ns();
	s->last_ns = r->sent_ns;
	clock_gettime(CLOCK_REALTIME, &now);
	/*
	 * Every request of the round is asked for: r->out counts those still out, and a
	 * request that cannot start lowers it (the loop's bound once did, skipping series)
	 */
	nreq = cfg->query ? cfg->nseries : 1;
	r->out = nreq;
	for (size_t k = 0; k < nreq; k++) {
		struct observer_reqarg *a = &r->args[k];
		char path[4096], enc[3072];
		struct httpc_req rq = {.host = cfg->host,
		                       .port = cfg->port,
		                       .path = cfg->path,
		                       .ssl = s->ssl,
		                       .token = s->token,
		                       .timeout_ns = s->timeout_ns,
		                       .max_bytes = OBSERVER_BODY_MAX};

		if (cfg->query) {
			observer_encode(cfg->series[k].query, enc, sizeof(enc));
			snprintf(path, sizeof(path), "%s?query=%s&time=%lld.%03ld", s->query_path,
			         enc, (long long)now.tv_sec, now.tv_nsec / 1000000);
			rq.path = path;
		}
		a->r = r;
		a->k = k;
		r->reqs[k] = httpc_get(o->base, o->dns, &rq, observer_answer, a);
		if (r->reqs[k] == NULL) {
			snprintf(r->line.late, sizeof(r->line.late), "cannot start a request");
			if (--r->out == 0)
				observer_round_end(r);
		}
	}
}

static void observer_arm(struct observer *o);

static void observer_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct observer *o = arg;
	uint32_t k = o->next++;
	uint64_t at = o->start_ns + (uint64_t)k * o->interval_ns;

	for (size_t i = 0; i < o->n; i++) {
		struct observer_src *s = &o->srcs[i];
		uint64_t every = s->cfg->every_ns;

		if (k == 0) {
			s->timeout_ns = observer_timeout(s, o->interval_ns);
			for (size_t j = 0; j < s->cfg->nseries; j++)
				s->series[j].prev_has =
				    false; /* the gap between steps is no rate */
			observer_ask(s, OBSERVER_BASELINE);
			s->last_ns = at;
			continue;
		}
		/* every: the first interval end at least that long after the last poll */
		if (every > o->interval_ns && at + o->interval_ns / 2 < s->last_ns + every)
			continue;
		observer_ask(s, k - 1);
	}
	observer_arm(o);
}

static void observer_arm(struct observer *o)
{
	uint64_t now = clock_now_ns(), at;
	struct timeval tv;

	if (!o->running || o->next > o->nintervals) {
		o->running = false;
		observer_check_idle(o);
		return;
	}
	at = o->start_ns + (uint64_t)o->next * o->interval_ns;
	at = at > now ? at - now : 0;
	tv.tv_sec = (time_t)(at / 1000000000ull);
	tv.tv_usec = (suseconds_t)(at % 1000000000ull / 1000);
	evtimer_assign(o->tick, o->base, observer_tick_cb, o);
	evtimer_add(o->tick, &tv);
}

void observer_step(struct observer *o, const char *workload, uint32_t step, uint64_t start_ns,
                   uint64_t interval_ns, uint32_t n)
{
	/*
	 * The step before ended on its agents' clocks a hair before this loop's timer for its
	 * last interval's end: that poll is taken now, not lost.
	 */
	if (o->running && o->next <= o->nintervals && o->next > 0) {
		evtimer_del(o->tick);
		o->nintervals = o->next;
		observer_tick_cb(-1, 0, o);
	}
	evtimer_del(o->tick);
	snprintf(o->workload, sizeof(o->workload), "%s", workload);
	o->step = step;
	o->start_ns = start_ns;
	o->interval_ns = interval_ns;
	o->nintervals = n;
	o->next = 0;
	o->running = true;
	observer_arm(o);
}

void observer_step_stop(struct observer *o, uint32_t ran)
{
	if (o == NULL)
		return;
	/* the end of its last interval is still polled (its timer may not have fired yet) */
	if (ran < o->nintervals)
		o->nintervals = ran;
	if (o->next > o->nintervals) {
		evtimer_del(o->tick);
		o->running = false;
	}
	observer_check_idle(o);
}

void observer_cancel(struct observer *o)
{
	if (o == NULL)
		return;
	evtimer_del(o->tick);
	o->running = false;
	for (size_t i = 0; i < o->n; i++) {
		struct observer_round *r = &o->srcs[i].round;

		for (size_t k = 0; k < o->srcs[i].cfg->nseries; k++) {
			if (r->reqs[k] != NULL) {
				httpc_cancel(r->reqs[k]);
				r->reqs[k] = NULL;
			}
		}
		r->busy = false;
		r->out = 0;
	}
	observer_check_idle(o);
}

static bool observer_busy(const struct observer *o)
{
	if (o->running)
		return true; /* a boundary of the step is still to be polled */
	for (size_t i = 0; i < o->n; i++)
		if (o->srcs[i].round.busy)
			return true;
	return false;
}

static void observer_check_idle(struct observer *o)
{
	void (*fn)(void *) = o->idle_fn;

	if (fn == NULL || observer_busy(o))
		return;
	o->idle_fn = NULL;
	fn(o->idle_arg);
}

void observer_when_idle(struct observer *o, void (*fn)(void *), void *arg)
{
	o->idle_fn = fn;
	o->idle_arg = arg;
	observer_check_idle(o);
}

void observer_free(struct observer *o)
{
	if (o == NULL)
		return;
	o->idle_fn = NULL;
	observer_cancel(o);
	for (size_t i = 0; i < o->n; i++) {
		struct observer_src *s = &o->srcs[i];

		if (s->ssl != NULL)
			SSL_CTX_free(s->ssl);
		if (s->token != NULL) {
			/* the token leaves no copy behind in freed memory */
			memset(s->token, 0, strlen(s->token));
			free(s->token);
		}
		free(s->query_path);
		free(s->series);
		free(s->round.reqs);
		free(s->round.args);
	}
	free(o->srcs);
	if (o->dns != NULL)
		evdns_base_free(o->dns, 0);
	event_free(o->tick);
	free(o);
}
