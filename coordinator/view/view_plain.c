/* SPDX-License-Identifier: MIT */
/* Campaign events as plain lines, for pipes and CI logs. */
#include <string.h>

#include "jsonline.h"
#include "units.h"
#include "view_plain.h"

static const char *view_us(double us, char *buf, size_t len)
{
	units_format_duration((uint64_t)(us * 1e3), buf, len);
	return buf;
}

void view_json(void *arg, const char *line)
{
	FILE *f = arg;

	fputs(line, f);
	fputc('\n', f);
	fflush(f);
}

void view_plain(void *arg, const char *line)
{
	FILE *f = arg;
	struct jsonline j;
	const char *ev, *s;
	char a[32], b[32];

	if (jsonline_parse(&j, line) < 0 || (ev = jsonline_str(&j, "event")) == NULL)
		return;
	if (strcmp(ev, "agent") == 0 && (s = jsonline_str(&j, "state")) != NULL) {
		if (strcmp(s, "ready") == 0)
			fprintf(f, "agent %s ready (%.0f/%.0f)\n", jsonline_str(&j, "name"),
			        jsonline_num(&j, "n", 0), jsonline_num(&j, "of", 0));
		else
			fprintf(f, "agent %s %s\n", jsonline_str(&j, "name"), s);
	} else if (strcmp(ev, "workload") == 0) {
		fprintf(
		    f,
		    "workload %.0f/%.0f %s: %s %.0f B, %.0f agent(s) x %.0f worker(s) x qd %.0f\n",
		    jsonline_num(&j, "workload", 0) + 1, jsonline_num(&j, "of", 0),
		    jsonline_str(&j, "name"), jsonline_str(&j, "rw"),
		    jsonline_num(&j, "block_size", 0), jsonline_num(&j, "agents", 0),
		    jsonline_num(&j, "workers", 0), jsonline_num(&j, "qd", 0));
	} else if (strcmp(ev, "layout") == 0) {
		double done = jsonline_num(&j, "done", 0), total = jsonline_num(&j, "total", 1);

		units_format_size((uint64_t)done, a, sizeof(a));
		units_format_size((uint64_t)total, b, sizeof(b));
		fprintf(f, "  agent %s: laying out targets, %s of %s (%.0f%%)\n",
		        jsonline_str(&j, "agent"), a, b, total > 0 ? 100.0 * done / total : 0);
	} else if (strcmp(ev, "step") == 0) {
		double rate = jsonline_num(&j, "offered_ops", 0);

		if (rate > 0)
			fprintf(f, "  step %.0f: %.0f ops/s offered (%.1f per worker)\n",
			        jsonline_num(&j, "step", 0) + 1, rate,
			        jsonline_num(&j, "per_worker", 0));
		else
			fprintf(f, "  step %.0f: max, closed loop at queue depth %.0f per worker\n",
			        jsonline_num(&j, "step", 0) + 1, jsonline_num(&j, "qd", 0));
	} else if (strcmp(ev, "interval") == 0 && (s = jsonline_str(&j, "agent")) != NULL &&
	           strcmp(s, "*") == 0) {
		fprintf(f, "    interval %.0f%s: %.0f ops/s, %.1f MiB/s, mean %s, p99 %s\n",
		        jsonline_num(&j, "interval", 0) + 1,
		        jsonline_bool(&j, "warmup") ? " (warm-up)" : "",
		        jsonline_num(&j, "ops_s", 0), jsonline_num(&j, "mib_s", 0),
		        view_us(jsonline_num(&j, "mean_us", 0), a, sizeof(a)),
		        view_us(jsonline_num(&j, "p99_us", 0), b, sizeof(b)));
	} else if (strcmp(ev, "point") == 0) {
		s = jsonline_str(&j, "saturated");
		fprintf(
		    f,
		    "  step %.0f: achieved %.0f ops/s (%.1f MiB/s), mean %s, p99 %s, errors %.0f, "
		    "client CPU %.0f%%%s%s%s\n",
		    jsonline_num(&j, "step", 0) + 1, jsonline_num(&j, "achieved_ops", 0),
		    jsonline_num(&j, "mib_s", 0),
		    view_us(jsonline_num(&j, "mean_us", 0), a, sizeof(a)),
		    view_us(jsonline_num(&j, "p99_us", 0), b, sizeof(b)),
		    jsonline_num(&j, "errors", 0), jsonline_num(&j, "client_cpu_pct", 0),
		    jsonline_bool(&j, "steady") ? "" : ", NOT steady",
		    s && *s ? "; saturated: " : "", s ? s : "");
	} else if (strcmp(ev, "workload_done") == 0) {
		fprintf(f, "workload %s: %s\n  (%s)\n", jsonline_str(&j, "name"),
		        jsonline_str(&j, "knee"), jsonline_str(&j, "why"));
	}
	fflush(f);
}
