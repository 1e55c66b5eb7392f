/* SPDX-License-Identifier: MIT */
/*
 * Merge delay: the time from the last agent's report of an interval leaving the
 * swarm to the coordinator's merged line for it ("agent":"*") in intervals.jsonl.
 * inotify wakes the swarm when the results directory gets a campaign directory and
 * when its intervals.jsonl grows.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "clock.h"
#include "swarm.h"
#include "xalloc.h"

#define SWARM_WATCH_KEYS 4096

struct swarm_watch_key {
	char workload[128];
	uint32_t step, interval;
	uint64_t last_sent_ns;
	bool used;
};

struct swarm_watch {
	int ifd, root_wd;
	char root[PATH_MAX];
	char file[PATH_MAX + 32];
	int fd; /* intervals.jsonl, once it exists */
	struct event *ev;
	char line[1 << 16];
	size_t linelen;
	bool overlong;
	struct swarm_watch_key keys[SWARM_WATCH_KEYS];
	double *delays_ms;
	size_t ndelays, cap;
	uint64_t merged, unmatched;
};

static struct swarm_watch_key *swarm_watch_key(struct swarm_watch *w, const char *workload,
                                               uint32_t step, uint32_t interval, bool make)
{
	size_t h = (step * 131u + interval * 7u + (unsigned char)workload[0]) % SWARM_WATCH_KEYS;

	for (size_t i = 0; i < SWARM_WATCH_KEYS; i++) {
		struct swarm_watch_key *k = &w->keys[(h + i) % SWARM_WATCH_KEYS];

		if (!k->used) {
			if (!make)
				return NULL;
			k->used = true;
			snprintf(k->workload, sizeof(k->workload), "%s", workload);
			k->step = step;
			k->interval = interval;
			return k;
		}
		if (k->step == step && k->interval == interval &&
		    strcmp(k->workload, workload) == 0)
			return k;
	}
	return NULL;
}

void swarm_watch_sent(struct swarm_watch *w, const char *workload, uint32_t step, uint32_t interval,
                      uint64_t now_ns)
{
	struct swarm_watch_key *k = swarm_watch_key(w, workload, step, interval, true);

	if (k != NULL && now_ns > k->last_sent_ns)
		k->last_sent_ns = now_ns;
}

/* "key":"text" or "key":number from a JSON line we know the shape of. */
static bool swarm_watch_field(const char *line, const char *key, char *buf, size_t len)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	if ((p = strstr(line, pat)) == NULL)
		return false;
	p += strlen(pat);
	if (*p == '"')
		p++;
	while (p[n] != '\0' && p[n] != '"' && p[n] != ',' && p[n] != '}' && n + 1 < len)
		n++;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

static void swarm_watch_line(struct swarm_watch *w, const char *line, uint64_t now)
{
	char agent[16], workload[128], step[16], interval[16];
	struct swarm_watch_key *k;

	if (!swarm_watch_field(line, "agent", agent, sizeof(agent)) || strcmp(agent, "*") != 0 ||
	    !swarm_watch_field(line, "workload", workload, sizeof(workload)) ||
	    !swarm_watch_field(line, "step", step, sizeof(step)) ||
	    !swarm_watch_field(line, "interval", interval, sizeof(interval)))
		return;
	w->merged++;
	k = swarm_watch_key(w, workload, (uint32_t)atoi(step), (uint32_t)atoi(interval), false);
	if (k == NULL || k->last_sent_ns == 0 || now < k->last_sent_ns) {
		w->unmatched++;
		return;
	}
	if (w->ndelays == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 256;
		w->delays_ms = xreallocarray(w->delays_ms, w->cap, sizeof(*w->delays_ms));
	}
	w->delays_ms[w->ndelays++] = (double)(now - k->last_sent_ns) / 1e6;
}

static void swarm_watch_read(struct swarm_watch *w)
{
	char buf[1 << 16];
	ssize_t n;
	uint64_t now = clock_now_ns();

	while ((n = read(w->fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				w->line[w->linelen] = '\0';
				if (!w->overlong)
					swarm_watch_line(w, w->line, now);
				w->linelen = 0;
				w->overlong = false;
			} else if (w->linelen + 1 < sizeof(w->line)) {
				/* The fields we read come first: a long line's head is enough. */
				w->line[w->linelen++] = buf[i];
			}
		}
	}
}

static void swarm_watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct swarm_watch *w = arg;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;

	(void)what;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			if (e->wd == w->root_wd && (e->mask & IN_ISDIR) && e->len > 0 &&
			    w->fd < 0) {
				char dir[PATH_MAX + 256];

				snprintf(dir, sizeof(dir), "%s/%s", w->root, e->name);
				inotify_add_watch(fd, dir, IN_MODIFY | IN_CREATE);
				snprintf(w->file, sizeof(w->file), "%.*s/intervals.jsonl",
				         PATH_MAX - 16, dir);
			}
			p += sizeof(*e) + e->len;
		}
	}
	if (w->fd < 0 && w->file[0] != '\0')
		w->fd = open(w->file, O_RDONLY | O_CLOEXEC);
	if (w->fd >= 0)
		swarm_watch_read(w);
}

struct swarm_watch *swarm_watch_new(struct event_base *base, const char *results_dir)
{
	struct swarm_watch *w = xcalloc(1, sizeof(*w));

	w->fd = -1;
	snprintf(w->root, sizeof(w->root), "%s", results_dir);
	w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->ifd < 0 || (w->root_wd = inotify_add_watch(w->ifd, results_dir, IN_CREATE)) < 0) {
		perror(results_dir);
		free(w);
		return NULL;
	}
	w->ev = event_new(base, w->ifd, EV_READ | EV_PERSIST, swarm_watch_cb, w);
	event_add(w->ev, NULL);
	return w;
}

static int swarm_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void swarm_watch_print(struct swarm_watch *w)
{
	if (w->fd >= 0)
		swarm_watch_read(w);
	if (w->ndelays == 0) {
		printf("merge_delay_ms: none (merged %llu lines, %llu unmatched)\n",
		       (unsigned long long)w->merged, (unsigned long long)w->unmatched);
		return;
	}
	qsort(w->delays_ms, w->ndelays, sizeof(double), swarm_cmp);
	printf("merged_lines: %llu\nmerge_delay_ms: median %.2f p99 %.2f max %.2f\n",
	       (unsigned long long)w->merged, w->delays_ms[w->ndelays / 2],
	       w->delays_ms[w->ndelays * 99 / 100], w->delays_ms[w->ndelays - 1]);
}

void swarm_watch_free(struct swarm_watch *w)
{
	if (w == NULL)
		return;
	event_free(w->ev);
	close(w->ifd);
	if (w->fd >= 0)
		close(w->fd);
	free(w->delays_ms);
	free(w);
}
