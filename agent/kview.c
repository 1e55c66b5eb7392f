/* SPDX-License-Identifier: MIT */
/* The kernel's view of a target's device: resolved once per workload, sampled per interval. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kview.h"
#include "xalloc.h"

/* mountstats lists every mount with its RPC figures: a few KiB each. */
#define KVIEW_TEXT_MAX (4u << 20)

/* A small text file of the kernel's, whole, NUL-terminated (free it); NULL when unreadable. */
static char *kview_read_text(const char *path)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		ssize_t got;

		if (n + 1 >= cap) {
			if (cap >= KVIEW_TEXT_MAX)
				break;
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	return buf;
}

int kview_parse_stat(const char *text, struct kview_counts *c)
{
	uint64_t v[11];

	/* reads merges sectors ms writes merges sectors ms in_flight io_ticks time_in_queue */
	if (sscanf(text,
	           "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
	           " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64,
	           &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
	           &v[10]) != 11)
		return -1;
	memset(c, 0, sizeof(*c));
	c->reads = v[0];
	c->writes = v[4];
	c->io_ms = v[3] + v[7];
	c->busy_ms = v[9];
	c->queue_ms = v[10];
	return 0;
}

/* The mount point of a mountstats "device SRC mounted on MNT with fstype ..." line. */
static bool kview_device_line(const char *line, size_t len, const char *mnt)
{
	const char *on, *with;
	char *l = strndup(line, len);
	bool same = false;

	if (l == NULL)
		return false;
	on = strstr(l, " mounted on ");
	with = on ? strstr(on + 12, " with fstype ") : NULL;
	if (with != NULL)
		same = (size_t)(with - (on + 12)) == strlen(mnt) &&
		       memcmp(on + 12, mnt, strlen(mnt)) == 0;
	free(l);
	return same;
}

int kview_parse_mountstats(const char *text, const char *mnt, struct kview_counts *c)
{
	bool in = false, found = false;

	memset(c, 0, sizeof(*c));
	for (const char *p = text; *p != '\0';) {
		const char *end = strchr(p, '\n');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *s = p;

		if (strncmp(p, "device ", 7) == 0) {
			in = kview_device_line(p, len, mnt);
			found |= in;
		} else if (in) {
			uint64_t v[8];
			int read;

			while (s < p + len && (*s == ' ' || *s == '\t'))
				s++;
			/* op: ops transmissions timeouts bytes_sent bytes_recv queue rtt execute */
			read = strncmp(s, "READ:", 5) == 0;
			if ((read || strncmp(s, "WRITE:", 6) == 0) &&
			    sscanf(s + (read ? 5 : 6),
			           "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			           " %" SCNu64 " %" SCNu64 " %" SCNu64,
			           &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8) {
				c->nfs_ops += v[0];
				c->nfs_rtt_ms += v[6];
				c->nfs_exec_ms += v[7];
			}
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return found ? 0 : -1;
}

/* The last path component of p. */
static const char *kview_base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* A device without a /sys/dev/block entry (major 0: NFS, tmpfs...): found by its mount. */
static void kview_resolve_mount(struct kview *kv, dev_t dev, char *why, size_t len)
{
	char *text = kview_read_text("/proc/self/mountinfo"), want[32];
	const char *line;

	snprintf(why, len, "device %u:%u is no block device and no NFS mount", major(dev),
	         minor(dev));
	if (text == NULL)
		return;
	snprintf(want, sizeof(want), "%u:%u", major(dev), minor(dev));
	for (line = strtok(text, "\n"); line != NULL; line = strtok(NULL, "\n")) {
		/* ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS ... - FSTYPE SOURCE SUPER_OPTIONS */
		char devs[32], mnt[256], fstype[32], source[256];
		const char *dash = strstr(line, " - ");

		if (dash == NULL || sscanf(line, "%*s %*s %31s %*s %255s", devs, mnt) != 2 ||
		    strcmp(devs, want) != 0 || sscanf(dash + 3, "%31s %255s", fstype, source) != 2)
			continue;
		if (strncmp(fstype, "nfs", 3) != 0) {
			snprintf(why, len, "%s on %s (%s) has no device whose counters move",
			         fstype, mnt, want);
			break;
		}
		kv->kind = KVIEW_NFS;
		snprintf(kv->mnt, sizeof(kv->mnt), "%s", mnt);
		/* the export, cut to the record's room: the mount point says the rest */
		snprintf(kv->name, sizeof(kv->name), "nfs %.*s", (int)sizeof(kv->name) - 5, source);
		break;
	}
	free(text);
}

void kview_resolve(struct kview *kv, dev_t dev, char *why, size_t len)
{
	char sys[64], part[96], real[PATH_MAX];

	memset(kv, 0, sizeof(*kv));
	why[0] = '\0';
	snprintf(sys, sizeof(sys), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	if (major(dev) == 0 || realpath(sys, real) == NULL) {
		kview_resolve_mount(kv, dev, why, len);
		return;
	}
	/*
	 * A partition's own stat file moves too, but the disk's is read: the disk's queue
	 * is the one that saturates (its busy time and queue are the device's), and I/O on
	 * its other partitions shares it, which only the disk's counters show.
	 */
	snprintf(part, sizeof(part), "%s/partition", sys);
	if (access(part, F_OK) == 0) {
		char *slash = strrchr(real, '/');

		if (slash != NULL)
			*slash = '\0';
	}
	if (strlen(real) + 6 > sizeof(kv->stat)) {
		snprintf(why, len, "%s: path too long", real);
		return;
	}
	snprintf(kv->stat, sizeof(kv->stat), "%s/stat", real);
	snprintf(kv->name, sizeof(kv->name), "%s", kview_base(real));
	kv->kind = KVIEW_BLOCK;
}

void kview_disk_dir(const struct kview *kv, char *dir, size_t len)
{
	char *slash;

	snprintf(dir, len, "%s", kv->stat);
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
}

/* b - a, or 0 when the counter went backwards (a device re-created). */
static uint64_t kview_delta(uint64_t b, uint64_t a)
{
	return b >= a ? b - a : 0;
}

bool kview_sample(struct kview *kv, struct kview_counts *d)
{
	struct kview_counts now, *last = &kv->last;
	bool have = false;
	char *text;
	int rc;

	memset(d, 0, sizeof(*d));
	if (kv->kind == KVIEW_NONE)
		return false;
	text = kview_read_text(kv->kind == KVIEW_BLOCK ? kv->stat : "/proc/self/mountstats");
	if (text == NULL)
		return false;
	rc = kv->kind == KVIEW_BLOCK ? kview_parse_stat(text, &now)
	                             : kview_parse_mountstats(text, kv->mnt, &now);
	free(text);
	if (rc < 0)
		return false;
	if (kv->have_last) {
		d->reads = kview_delta(now.reads, last->reads);
		d->writes = kview_delta(now.writes, last->writes);
		d->io_ms = kview_delta(now.io_ms, last->io_ms);
		d->busy_ms = kview_delta(now.busy_ms, last->busy_ms);
		d->queue_ms = kview_delta(now.queue_ms, last->queue_ms);
		d->nfs_ops = kview_delta(now.nfs_ops, last->nfs_ops);
		d->nfs_rtt_ms = kview_delta(now.nfs_rtt_ms, last->nfs_rtt_ms);
		d->nfs_exec_ms = kview_delta(now.nfs_exec_ms, last->nfs_exec_ms);
		have = true;
	}
	*last = now;
	kv->have_last = true;
	return have;
}
