/* SPDX-License-Identifier: MIT */
/* dashboard-feed: plays a file of JSON events into the dashboard, to see it without a campaign. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "dashboard.h"
#include "event_json.h"
#include "log.h"

struct feed {
	struct event_base *base;
	struct dashboard *dash;
	FILE *f;
	struct event *ev_line, *ev_exit;
	struct timeval delay;
	long exit_after;  /* seconds after the last line; 0: stay until q */
	long lineno, bad; /* lines that are not events, and why the last one is not */
	char why[1100];
	bool cancelled;
};

static void feed_end(struct feed *feed)
{
	struct timeval tv = {feed->exit_after, 0};

	if (feed->f != NULL) {
		fclose(feed->f);
		feed->f = NULL;
	}
	if (feed->exit_after > 0)
		evtimer_add(feed->ev_exit, &tv);
}

/* One line per tick, as a runner would emit them over a campaign's seconds. */
static void feed_line_cb(evutil_socket_t sock, short what, void *arg)
{
	struct feed *feed = arg;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	struct error err;
	struct event e;

	(void)sock;
	(void)what;
	while ((n = getline(&line, &cap, feed->f)) >= 0) {
		feed->lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		/* "#log TEXT": a warning the process logs meanwhile, as a runner's retry does */
		if (strncmp(line, "#log ", 5) == 0) {
			log_warn("%s", line + 5);
			continue;
		}
		if (event_json_decode(&e, line, &err) == 0)
			break;
		/* Shown once the terminal is back (stderr is the dashboard's too). */
		feed->bad++;
		snprintf(feed->why, sizeof(feed->why), "line %ld: %s", feed->lineno, err.msg);
	}
	if (n <= 0) {
		feed_end(feed);
	} else {
		dashboard_event(feed->dash, &e);
		event_clear(&e);
		evtimer_add(feed->ev_line, &feed->delay);
	}
	free(line);
}

static void feed_exit_cb(evutil_socket_t sock, short what, void *arg)
{
	(void)sock;
	(void)what;
	event_base_loopbreak(((struct feed *)arg)->base);
}

static void feed_detach(void *arg)
{
	event_base_loopbreak(((struct feed *)arg)->base);
}

/* What a runner does when cancelled: stop, and say so in the done event. */
static void feed_cancel(void *arg)
{
	struct feed *feed = arg;

	struct event e = {.kind = EVENT_DONE,
	                  .done = {.status = 1,
	                           .message = "cancelled from the dashboard",
	                           .results = "(dashboard-feed)"}};

	feed->cancelled = true;
	evtimer_del(feed->ev_line);
	dashboard_event(feed->dash, &e);
	feed_end(feed);
}

int main(int argc, char **argv)
{
	static const struct dashboard_cbs cbs = {.on_detach = feed_detach,
	                                         .on_cancel = feed_cancel};
	struct timeval now = {0, 0};
	struct feed feed = {0};
	long ms = 50;

	if (argc < 2 || argc > 5 || (argc >= 3 && (ms = strtol(argv[2], NULL, 10)) < 0) ||
	    (argc >= 4 && (strcmp(argv[3], "--exit-after") != 0 || argc != 5 ||
	                   (feed.exit_after = strtol(argv[4], NULL, 10)) <= 0))) {
		fprintf(
		    stderr,
		    "usage: dashboard-feed EVENTS.jsonl [DELAY_MS] [--exit-after SECONDS]\n"
		    "  plays the events (iocurve run --json lines) into the dashboard, one per "
		    "DELAY_MS "
		    "(default 50);\n  then stays until q, or SECONDS more; a line \"#log TEXT\" "
		    "logs TEXT as a warning\n");
		return 2;
	}
	if ((feed.f = fopen(argv[1], "r")) == NULL) {
		perror(argv[1]);
		return 1;
	}
	feed.delay = (struct timeval){ms / 1000, ms % 1000 * 1000};
	feed.base = event_base_new();
	feed.ev_line = evtimer_new(feed.base, feed_line_cb, &feed);
	feed.ev_exit = evtimer_new(feed.base, feed_exit_cb, &feed);
	if (feed.base == NULL || feed.ev_line == NULL || feed.ev_exit == NULL) {
		fprintf(stderr, "dashboard-feed: cannot set up the event loop\n");
		return 1;
	}
	if ((feed.dash = dashboard_new(feed.base, &cbs, &feed)) == NULL) {
		fprintf(stderr, "dashboard-feed: this terminal cannot show the dashboard "
		                "(stdin and stdout must be a terminal that TERM describes)\n");
		fclose(feed.f);
		return 1;
	}
	evtimer_add(feed.ev_line, &now);
	event_base_dispatch(feed.base);
	dashboard_free(feed.dash);
	if (feed.cancelled)
		printf("dashboard-feed: the campaign was cancelled from the dashboard\n");
	if (feed.bad > 0)
		fprintf(stderr, "dashboard-feed: %ld line(s) skipped, not events; %s\n", feed.bad,
		        feed.why);
	if (feed.f != NULL)
		fclose(feed.f);
	event_free(feed.ev_line);
	event_free(feed.ev_exit);
	event_base_free(feed.base);
	return 0;
}
