/* SPDX-License-Identifier: MIT */
/*
 * --set FIELD=VALUE: one field of every IntervalReport a session sends, forced to
 * a value (the coordinator's input checks, tests/integration/hostile_numbers.sh).
 * FIELD is a counter of record_counters, duration_ns, workers, interval, step, workload_index,
 * host_cpu_pct, err_errno, err_offset, or latency.count / latency.sum_ns / latency.min_ns /
 * latency.max_ns (and service.*, read_latency.*, write_latency.*), or latency.mean_ns (every
 * value of the histogram VALUE, a bin's low edge: a histogram that passes every check of its own,
 * as large as a fleet can hold once), or step_done.start_time
 * (StepDone's), or step_done.start_offset (StepDone's start moved by VALUE seconds, signed); or
 * err_path, a failure's target as text (\xNN a byte), which also sets err_errno 5 (EIO). VALUE is a
 * number
 * (-1 and the like wrap into the field's type as C's conversions do), "max" or "min" of its type,
 * or for host_cpu_pct anything strtod reads ("nan", "inf", "-1e308").
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "hist.h"
#include "swarm.h"

enum swarm_type { SWARM_U64, SWARM_U32, SWARM_I32, SWARM_DOUBLE };

static const struct {
	const char *name;
	size_t off;
	enum swarm_type type;
} swarm_fields[] = {
    {"duration_ns", offsetof(Iocurve__IntervalReport, duration_ns), SWARM_U64},
    {"workers", offsetof(Iocurve__IntervalReport, workers), SWARM_U32},
    {"interval", offsetof(Iocurve__IntervalReport, interval), SWARM_U32},
    {"step", offsetof(Iocurve__IntervalReport, step), SWARM_U32},
    {"workload_index", offsetof(Iocurve__IntervalReport, workload_index), SWARM_U32},
    {"host_cpu_pct", offsetof(Iocurve__IntervalReport, host_cpu_pct), SWARM_DOUBLE},
    {"err_errno", offsetof(Iocurve__IntervalReport, err_errno), SWARM_I32},
    {"err_offset", offsetof(Iocurve__IntervalReport, err_offset), SWARM_U64},
};

static const struct {
	const char *name;
	size_t off;
} swarm_hist_fields[] = {
    {"count", offsetof(Iocurve__Histogram, count)},
    {"sum_ns", offsetof(Iocurve__Histogram, sum)},
    {"min_ns", offsetof(Iocurve__Histogram, min)},
    {"max_ns", offsetof(Iocurve__Histogram, max)},
};

/* VALUE for a field of type t, as the bytes it is stored in. */
static int swarm_set_value(struct swarm_set *s, const char *v)
{
	char *end;

	errno = 0;
	if (s->type == SWARM_DOUBLE) {
		s->d = strcmp(v, "max") == 0   ? 1.7976931348623157e308
		       : strcmp(v, "min") == 0 ? -1.7976931348623157e308
		                               : strtod(v, &end);
		return strcmp(v, "max") == 0 || strcmp(v, "min") == 0 || (end != v && *end == '\0')
		           ? 0
		           : -1;
	}
	if (strcmp(v, "max") == 0) {
		s->u = s->type == SWARM_U64   ? UINT64_MAX
		       : s->type == SWARM_U32 ? UINT32_MAX
		                              : INT32_MAX;
		return 0;
	}
	if (strcmp(v, "min") == 0) {
		s->u = s->type == SWARM_I32 ? (uint64_t)(int64_t)INT32_MIN : 0;
		return 0;
	}
	s->u = (uint64_t)strtoll(v, &end, 0);
	if (errno == ERANGE)
		s->u = strtoull(v, &end, 0);
	return end != v && *end == '\0' ? 0 : -1;
}

int swarm_set_parse(struct swarm_set *s, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	memset(s, 0, sizeof(*s));
	if (eq == NULL || n == 0 || n >= sizeof(s->field))
		return -1;
	memcpy(s->field, arg, n);
	s->hist = strncmp(s->field, "latency.", 8) == 0          ? 1
	          : strncmp(s->field, "service.", 8) == 0        ? 2
	          : strncmp(s->field, "read_latency.", 13) == 0  ? 3
	          : strncmp(s->field, "write_latency.", 14) == 0 ? 4
	                                                         : 0;
	s->off = SIZE_MAX;
	s->type = SWARM_U64;
	s->step_done = strcmp(s->field, "step_done.start_time") == 0     ? 1
	               : strcmp(s->field, "step_done.start_offset") == 0 ? 2
	                                                                 : 0;
	if (strcmp(s->field, "err_path") == 0) {
		const char *v = eq + 1;
		size_t o = 0;

		while (*v != '\0' && o + 1 < sizeof(s->text)) {
			unsigned b;

			if (v[0] == '\\' && v[1] == 'x' && sscanf(v + 2, "%2x", &b) == 1) {
				s->text[o++] = (char)b;
				v += 4;
			} else {
				s->text[o++] = *v++;
			}
		}
		s->text[o] = '\0';
		s->is_text = true;
		return 0;
	}
	if (s->step_done) {
		s->off = 0;
	} else if (s->hist && strcmp(strchr(s->field, '.') + 1, "mean_ns") == 0) {
		s->mean = true;
		s->off = offsetof(Iocurve__Histogram, sum);
	} else if (s->hist) {
		for (size_t i = 0; i < sizeof(swarm_hist_fields) / sizeof(swarm_hist_fields[0]);
		     i++)
			if (strcmp(strchr(s->field, '.') + 1, swarm_hist_fields[i].name) == 0)
				s->off = swarm_hist_fields[i].off;
	} else {
		for (size_t i = 0; i < record_ncounters; i++)
			if (strcmp(s->field, record_counters[i].key) == 0)
				s->off = record_counters[i].wire;
		for (size_t i = 0; i < sizeof(swarm_fields) / sizeof(swarm_fields[0]); i++)
			if (strcmp(s->field, swarm_fields[i].name) == 0) {
				s->off = swarm_fields[i].off;
				s->type = swarm_fields[i].type;
			}
	}
	if (s->off == SIZE_MAX)
		return -1;
	return swarm_set_value(s, eq + 1);
}

void swarm_set_apply(const struct swarm_set *s, Iocurve__IntervalReport *r,
                     Iocurve__Histogram *copy)
{
	char *p;

	if (s->is_text) {
		r->err_errno = 5;
		r->errors = 1;
		r->err_path = (char *)s->text;
		return;
	}
	if (s->hist) {
		/* The templates' histograms are shared: the forced one is a copy. */
		Iocurve__Histogram **h = s->hist == 1   ? &r->latency
		                         : s->hist == 2 ? &r->service
		                         : s->hist == 3 ? &r->read_latency
		                                        : &r->write_latency;

		*copy = **h;
		*h = copy;
		if (s->mean) {
			/* Every value in VALUE's bin, sent before the next report is made. */
			static uint8_t wire[2 * HIST_VARINT_MAX];
			uint64_t pair[2] = {hist_index(s->u), copy->count};

			copy->bins.data = wire;
			copy->bins.len = copy->count ? hist_pairs_put(wire, pair, 2) : 0;
			copy->sum = copy->count * s->u;
			copy->min = s->u;
			copy->max = s->u;
			return;
		}
		p = (char *)copy + s->off;
	} else {
		p = (char *)r + s->off;
	}
	switch (s->type) {
	case SWARM_U64:
		memcpy(p, &s->u, sizeof(uint64_t));
		break;
	case SWARM_U32:
		*(uint32_t *)p = (uint32_t)s->u;
		break;
	case SWARM_I32:
		*(int32_t *)p = (int32_t)(int64_t)s->u;
		break;
	case SWARM_DOUBLE:
		*(double *)p = s->d;
		break;
	}
}

void swarm_set_mutate(struct swarm_session *ss, const Iocurve__Envelope *env)
{
	size_t len = protobuf_c_message_get_packed_size(&env->base);
	uint8_t *buf = malloc(len ? len : 1);
	unsigned flips = 1 + (unsigned)(swarm_rand(&ss->sw->seed) % 4);
	Iocurve__Envelope *out;

	if (buf == NULL)
		return;
	protobuf_c_message_pack(&env->base, buf);
	for (unsigned i = 0; i < flips && len > 0; i++) {
		uint64_t r = swarm_rand(&ss->sw->seed);

		buf[r % len] ^= (uint8_t)(1u << (r >> 32) % 8);
	}
	out = iocurve__envelope__unpack(NULL, len, buf);
	if (ss->conn != NULL)
		conn_send(ss->conn, out != NULL ? out : env);
	if (out != NULL)
		iocurve__envelope__free_unpacked(out, NULL);
	free(buf);
}
