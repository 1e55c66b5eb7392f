/* SPDX-License-Identifier: MIT */
/*
 * Writes the frame corpus's seeds: real frames built by the real encoders (Hello,
 * IntervalReport with histograms, control requests, and one Event per line of
 * tests/dashboard-events.txt). Usage: fuzz-seed-frames EVENTS.txt OUTDIR
 * With INTERVALS.jsonl OUTFILE after them, also one seed of the agent_report target:
 * every agent line of a real run's intervals.jsonl as the IntervalReport frames its
 * agent sent (its index as the workload index, step parity as bins or not).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "event_json.h"
#include "event_pb.h"
#include "frame.h"
#include "intervals.h"
#include "record.h"

static int seed_n;

static void seed_write(const char *dir, const Iocurve__Envelope *env)
{
	struct evbuffer *b = evbuffer_new();
	char path[4096];
	FILE *f;

	if (frame_write(b, env, FRAME_MAX_DEFAULT) < 0)
		exit(1);
	snprintf(path, sizeof(path), "%s/seed-%03d-%s", dir, seed_n++, frame_body_name(env));
	f = fopen(path, "wb");
	if (f == NULL)
		exit(1);
	fwrite(evbuffer_pullup(b, -1), 1, evbuffer_get_length(b), f);
	fclose(f);
	evbuffer_free(b);
}

static void seed_hello(const char *dir)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Hello h = IOCURVE__HELLO__INIT;
	Iocurve__Label l = IOCURVE__LABEL__INIT, *ls[] = {&l};
	char *paths[] = {"/var/tmp/iocurve", "/dev/nvme0n1"};

	h.protocol_version = IOCURVE__PROTOCOL_VERSION__PROTOCOL_VERSION_CURRENT;
	h.name = "agent-1";
	h.host = "client1";
	h.cpus = 8;
	l.key = "zone";
	l.value = "a";
	h.labels = ls;
	h.n_labels = 1;
	h.allowed_paths = paths;
	h.n_allowed_paths = 2;
	h.software_version = "0.1.0";
	env.body_case = IOCURVE__ENVELOPE__BODY_HELLO;
	env.hello = &h;
	seed_write(dir, &env);
}

static void seed_interval(const char *dir)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__IntervalReport r = IOCURVE__INTERVAL_REPORT__INIT;
	struct record *rec = calloc(1, sizeof(*rec));

	record_reset(rec);
	for (uint64_t v = 1000; v < 5000000; v = v * 3 / 2) {
		hist_record(&rec->latency, v);
		hist_record(&rec->service, v / 2);
		rec->ops++;
		rec->bytes += 4096;
	}
	record_encode(rec, &r);
	r.duration_ns = 1000000000;
	r.workers = 2;
	r.interval = 3;
	env.body_case = IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT;
	env.interval_report = &r;
	seed_write(dir, &env);
	record_encoded_free(&r);
	free(rec);
}

static void seed_control(const char *dir)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Watch w = IOCURVE__WATCH__INIT;
	Iocurve__Error e = IOCURVE__ERROR__INIT;

	w.id = 1;
	env.body_case = IOCURVE__ENVELOPE__BODY_WATCH;
	env.watch = &w;
	seed_write(dir, &env);
	e.workload_index = 0;
	e.path = "/var/tmp/x";
	e.message = "target /var/tmp/x: refusing to follow a symbolic link";
	env.body_case = IOCURVE__ENVELOPE__BODY_ERROR;
	env.error = &e;
	seed_write(dir, &env);
}

/* A real run's agent lines, as the frames their agents sent, into one file. */
static int seed_run(const char *intervals, const char *out)
{
	struct intervals_line *l = calloc(1, sizeof(*l));
	struct intervals_reader *r;
	struct evbuffer *b = evbuffer_new();
	char agents[2][INTERVALS_NAME_MAX] = {"", ""};
	struct error err;
	FILE *f;
	int n = 0;

	r = intervals_open(intervals, &err);
	if (r == NULL || l == NULL)
		return -1;
	while (intervals_next(r, l, &err) > 0) {
		Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
		Iocurve__IntervalReport ir = IOCURVE__INTERVAL_REPORT__INIT;
		uint32_t a;

		if (l->window || l->cooldown || l->clock || l->lost || l->end || l->retried ||
		    strcmp(l->agent, INTERVALS_MERGED) == 0 || l->step > 0 || l->rec.no_bins)
			continue;
		for (a = 0; a < 2 && agents[a][0] != '\0' && strcmp(agents[a], l->agent) != 0; a++)
			;
		if (a == 2)
			continue;
		snprintf(agents[a], sizeof(agents[a]), "%s", l->agent);
		record_encode(&l->rec.rec, &ir);
		ir.workload_index = a;
		ir.interval = l->interval;
		ir.warmup = l->rec.warmup;
		ir.workers = l->rec.workers;
		ir.duration_ns = l->rec.duration_ns;
		ir.host_cpu_pct = l->rec.host_cpu_pct;
		env.body_case = IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT;
		env.interval_report = &ir;
		if (frame_write(b, &env, FRAME_MAX_DEFAULT) < 0)
			return -1;
		record_encoded_free(&ir);
		n++;
	}
	intervals_close(r);
	f = fopen(out, "wb");
	if (f == NULL)
		return -1;
	fwrite(evbuffer_pullup(b, -1), 1, evbuffer_get_length(b), f);
	fclose(f);
	evbuffer_free(b);
	free(l);
	printf("%s: %d reports\n", out, n);
	return 0;
}

int main(int argc, char **argv)
{
	char line[8192];
	FILE *f;

	if (argc == 5 && seed_run(argv[3], argv[4]) < 0) {
		fprintf(stderr, "fuzz-seed-frames: %s: cannot read its agents' lines\n", argv[3]);
		return 1;
	}
	if ((argc != 3 && argc != 5) || (f = fopen(argv[1], "r")) == NULL) {
		fprintf(stderr, "usage: fuzz-seed-frames EVENTS.txt OUTDIR\n");
		return 2;
	}
	seed_hello(argv[2]);
	seed_interval(argv[2]);
	seed_control(argv[2]);
	while (fgets(line, sizeof(line), f) != NULL) {
		Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
		struct error err;
		struct event e;

		if (event_json_decode(&e, line, &err) < 0)
			continue;
		env.body_case = IOCURVE__ENVELOPE__BODY_EVENT;
		env.event = event_pb_new(&e, 1);
		seed_write(argv[2], &env);
		event_pb_free(env.event);
		event_clear(&e);
	}
	fclose(f);
	printf("%d seeds\n", seed_n);
	return 0;
}
