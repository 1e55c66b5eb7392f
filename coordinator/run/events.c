/* SPDX-License-Identifier: MIT */
/* A campaign's live event stream: JSON lines fanned out to subscribers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "xalloc.h"

struct events_sub {
	events_fn fn;
	void *arg;
};

struct events {
	struct events_sub *subs;
	size_t n;
	int emitting; /* subscribers may unsubscribe from inside a call */
};

struct events *events_new(void)
{
	return xcalloc(1, sizeof(struct events));
}

void events_free(struct events *ev)
{
	if (ev == NULL)
		return;
	free(ev->subs);
	free(ev);
}

void events_subscribe(struct events *ev, events_fn fn, void *arg)
{
	ev->subs = xreallocarray(ev->subs, ev->n + 1, sizeof(*ev->subs));
	ev->subs[ev->n++] = (struct events_sub){fn, arg};
}

void events_unsubscribe(struct events *ev, events_fn fn, void *arg)
{
	for (size_t i = 0; i < ev->n; i++) {
		if (ev->subs[i].fn == fn && ev->subs[i].arg == arg) {
			/* Mark while emitting (the loop is walking the array), remove otherwise. */
			if (ev->emitting) {
				ev->subs[i].fn = NULL;
			} else {
				memmove(&ev->subs[i], &ev->subs[i + 1],
				        (ev->n - i - 1) * sizeof(*ev->subs));
				ev->n--;
			}
			return;
		}
	}
}

void events_emit(struct events *ev, const char *kind, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	int n;

	if (ev == NULL || ev->n == 0)
		return;
	n = snprintf(line, sizeof(line), "{\"event\":\"%s\"", kind);
	va_start(ap, fmt);
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 2, fmt, ap);
	va_end(ap);
	if ((size_t)n >= sizeof(line) - 2)
		n = (int)sizeof(line) - 3;
	line[n] = '}';
	line[n + 1] = '\0';
	ev->emitting++;
	for (size_t i = 0; i < ev->n; i++)
		if (ev->subs[i].fn != NULL)
			ev->subs[i].fn(ev->subs[i].arg, line);
	ev->emitting--;
	if (ev->emitting == 0) {
		size_t k = 0;

		for (size_t i = 0; i < ev->n; i++)
			if (ev->subs[i].fn != NULL)
				ev->subs[k++] = ev->subs[i];
		ev->n = k;
	}
}

const char *events_json_str(const char *text, char *buf, unsigned long len)
{
	size_t o = 0;

	if (len < 3)
		return "\"\"";
	buf[o++] = '"';
	for (; text != NULL && *text && o + 8 < len; text++) {
		unsigned char c = (unsigned char)*text;

		if (c == '"' || c == '\\') {
			buf[o++] = '\\';
			buf[o++] = (char)c;
		} else if (c < 0x20) {
			o += (size_t)snprintf(buf + o, len - o, "\\u%04x", c);
		} else {
			buf[o++] = (char)c;
		}
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return buf;
}
