/* SPDX-License-Identifier: MIT */
/* Logging to stderr (or a screen's sink): one line per message, time-stamped, tagged. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "text.h"

/* The process's logging settings; written once at start-up. */
static struct {
	char tag[96];
	enum log_level level;
	log_sink_fn *sink;
	void *sink_arg;
} log_state = {"iocurve", LOG_LEVEL_INFO, NULL, NULL};

void log_init(const char *tag, enum log_level level)
{
	log_set_tag(tag);
	log_state.level = level;
}

void log_set_tag(const char *tag)
{
	snprintf(log_state.tag, sizeof(log_state.tag), "%s", tag);
}

void log_set_sink(log_sink_fn *fn, void *arg)
{
	log_state.sink = fn;
	log_state.sink_arg = arg;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	static const char *names[] = {"error", "warn", "info", "debug"};
	char line[2048], clean[2048], stamp[32], whole[2200];
	struct timespec ts;
	struct tm tm;
	va_list ap;

	if (level > log_state.level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* Messages quote peers' text: no escape sequence gets through to a terminal. */
	text_clean(line, clean, sizeof(clean), false);
	snprintf(whole, sizeof(whole), "%s.%03ld %s %s: %s", stamp, ts.tv_nsec / 1000000,
	         log_state.tag, names[level], clean);
	if (log_state.sink != NULL)
		log_state.sink(log_state.sink_arg, level, whole, clean);
	else
		fprintf(stderr, "%s\n", whole);
}
