/* SPDX-License-Identifier: MIT */
/* Logging to stderr (or a screen's sink) with a program tag and a level. */
#ifndef IOCURVE_LOG_H
#define IOCURVE_LOG_H

enum log_level { LOG_LEVEL_ERROR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

/* Set once at start-up: "iocurve-agent[name]" or "iocurve". */
void log_init(const char *tag, enum log_level level);
void log_set_tag(const char *tag);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Where lines go instead of stderr while a screen owns the terminal (the dashboard):
 * the whole line as stderr would have it (time, tag, level, the cleaned message, no
 * newline) and the message alone. NULL puts stderr back.
 */
typedef void log_sink_fn(void *arg, enum log_level level, const char *line, const char *msg);
void log_set_sink(log_sink_fn *fn, void *arg);

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
