/* SPDX-License-Identifier: MIT */
/* Where a block device's completions land: its interrupts per CPU from /proc/interrupts. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "irqcpu.h"
#include "xalloc.h"

#define IRQCPU_MAX_IRQS 512
#define IRQCPU_UP       6 /* the PCI function is a few directories above the disk's device */

static bool irqcpu_listed(int irq, const int *irqs, int nirqs)
{
	for (int i = 0; i < nirqs; i++)
		if (irqs[i] == irq)
			return true;
	return false;
}

int irqcpu_parse(const char *text, const int *irqs, int nirqs, cpu_set_t *set)
{
	uint64_t count[CPU_SETSIZE] = {0}, max = 0, total = 0;
	int cpuno[CPU_SETSIZE], ncpus = 0, n = 0;
	const char *line = text, *eol;

	CPU_ZERO(set);
	/* The header names the online CPUs' columns: "CPU0 CPU1 ..." */
	eol = strchr(line, '\n');
	if (eol == NULL)
		return 0;
	for (const char *p = line; p < eol && ncpus < CPU_SETSIZE;) {
		char *end;
		long c;

		p = strstr(p, "CPU");
		if (p == NULL || p >= eol)
			break;
		c = strtol(p + 3, &end, 10);
		if (end == p + 3 || c < 0 || c >= CPU_SETSIZE)
			return 0;
		cpuno[ncpus++] = (int)c;
		p = end;
	}
	for (line = eol + 1; *line != '\0'; line = eol + 1) {
		char *end;
		long irq = strtol(line, &end, 10);
		const char *p = end;

		eol = strchr(line, '\n');
		if (eol == NULL)
			eol = line + strlen(line);
		if (end != line && *p == ':' && irqcpu_listed((int)irq, irqs, nirqs)) {
			p++;
			for (int c = 0; c < ncpus; c++) {
				unsigned long long v = strtoull(p, &end, 10);

				if (end == p || end > eol)
					break;
				count[c] += v;
				total += v;
				p = end;
			}
		}
		if (*eol == '\0')
			break;
	}
	if (total < IRQCPU_MIN_COUNT)
		return 0;
	for (int c = 0; c < ncpus; c++)
		max = count[c] > max ? count[c] : max;
	for (int c = 0; c < ncpus; c++)
		if (count[c] > 0 && count[c] * IRQCPU_SHARE >= max) {
			CPU_SET(cpuno[c], set);
			n++;
		}
	return n;
}

/* The MSI vectors of the PCI function at or above dir: how many, into irqs. */
static int irqcpu_vectors(const char *dir, int *irqs, int max)
{
	char path[PATH_MAX + 16], up[PATH_MAX];
	int n = 0;

	snprintf(up, sizeof(up), "%s", dir);
	for (int depth = 0; depth < IRQCPU_UP && n == 0; depth++) {
		DIR *d;
		struct dirent *e;
		char *slash;

		snprintf(path, sizeof(path), "%s/msi_irqs", up);
		d = opendir(path);
		if (d != NULL) {
			while ((e = readdir(d)) != NULL && n < max)
				if (e->d_name[0] >= '0' && e->d_name[0] <= '9')
					irqs[n++] = atoi(e->d_name);
			closedir(d);
		}
		slash = strrchr(up, '/');
		if (slash == NULL || slash == up)
			break;
		*slash = '\0';
	}
	return n;
}

static char *irqcpu_read(const char *path)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 16, len = 0;
	char *buf;

	if (f == NULL)
		return NULL;
	buf = xmalloc(cap);
	for (;;) {
		size_t got = fread(buf + len, 1, cap - len - 1, f);

		len += got;
		if (got == 0 || len + 1 < cap || cap >= (1u << 24))
			break;
		cap *= 2;
		buf = xreallocarray(buf, cap, 1);
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

int irqcpu_of_disk(const char *disk_dir, cpu_set_t *set, char *why, size_t len)
{
	char dev[PATH_MAX], real[PATH_MAX], *text;
	int irqs[IRQCPU_MAX_IRQS], nirqs, n;

	CPU_ZERO(set);
	snprintf(dev, sizeof(dev), "%s/device", disk_dir);
	if (realpath(dev, real) == NULL) {
		snprintf(why, len, "%s has no device (%s)", disk_dir, strerror(errno));
		return 0;
	}
	nirqs = irqcpu_vectors(real, irqs, IRQCPU_MAX_IRQS);
	if (nirqs == 0) {
		snprintf(why, len, "%s has no interrupts of its own", real);
		return 0;
	}
	text = irqcpu_read("/proc/interrupts");
	if (text == NULL) {
		snprintf(why, len, "/proc/interrupts: %s", strerror(errno));
		return 0;
	}
	n = irqcpu_parse(text, irqs, nirqs, set);
	free(text);
	if (n == 0)
		snprintf(why, len, "its %d interrupts have not been counted %d times yet", nirqs,
		         IRQCPU_MIN_COUNT);
	return n;
}

void irqcpu_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && at + 1 < len; c++) {
		int last = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, set))
			last++;
		if (last > c)
			at +=
			    (size_t)snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", c, last);
		else
			at += (size_t)snprintf(buf + at, len - at, "%s%d", at ? "," : "", c);
		c = last;
	}
}
