/* SPDX-License-Identifier: MIT */
/* Where an agent's processes run (placement.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "irqcpu.h"
#include "log.h"
#include "placement.h"

/* The filesystems whose files live in memory: a loop's thread reads them synchronously. */
#define PLACEMENT_TMPFS_MAGIC 0x01021994
#define PLACEMENT_RAMFS_MAGIC 0x858458f6

/* A loop device's backing file (the kernel's name of it) into back; false when none. */
static bool placement_backing_file(const char *disk, char *back, size_t len)
{
	char path[PATH_MAX + 32], *nl;
	FILE *f;

	snprintf(path, sizeof(path), "%s/loop/backing_file", disk);
	if ((f = fopen(path, "re")) == NULL)
		return false;
	if (fgets(back, (int)len, f) == NULL)
		back[0] = '\0';
	fclose(f);
	if ((nl = strchr(back, '\n')) != NULL)
		*nl = '\0';
	return true;
}

enum placement_where placement_completions(const struct kview *kv, cpu_set_t *set, char *why,
                                           size_t len)
{
	char disk[sizeof(kv->stat)], back[PATH_MAX], under[sizeof(kv->stat)], kwhy[160];
	struct stat st;
	struct statfs fs;
	struct kview bk;

	CPU_ZERO(set);
	why[0] = '\0';
	kview_disk_dir(kv, disk, sizeof(disk));
	if (!placement_backing_file(disk, back, sizeof(back)))
		return irqcpu_of_disk(disk, set, why, len) > 0 ? PLACEMENT_IRQS : PLACEMENT_UNKNOWN;
	if (back[0] == '\0' || stat(back, &st) < 0 || statfs(back, &fs) < 0) {
		snprintf(why, len, "%s's backing file %s: %s", kv->name, back[0] ? back : "(none)",
		         back[0] ? strerror(errno) : "not attached");
		return PLACEMENT_UNKNOWN;
	}
	if (fs.f_type == PLACEMENT_TMPFS_MAGIC || fs.f_type == PLACEMENT_RAMFS_MAGIC) {
		snprintf(
		    why, len,
		    "%s's backing file %s is in memory: %s completes on the CPU that submitted",
		    kv->name, back, kv->name);
		return PLACEMENT_SUBMITTER;
	}
	/* the backing file's disk, resolved as a target's is (a partition's whole disk) */
	kview_resolve(&bk, st.st_dev, kwhy, sizeof(kwhy));
	if (bk.kind != KVIEW_BLOCK) {
		snprintf(why, len, "%s's backing file %s is on no block device", kv->name, back);
		return PLACEMENT_UNKNOWN;
	}
	kview_disk_dir(&bk, under, sizeof(under));
	if (strcmp(under, disk) == 0 || irqcpu_of_disk(under, set, why, len) == 0)
		return PLACEMENT_UNKNOWN;
	snprintf(why, len, "the disk of %s's backing file, %s", kv->name, bk.name);
	return PLACEMENT_IRQS;
}

/*
 * A CPU a process, woken where it submits: the allowed CPUs in turn from the one of the
 * first worker's fleet index, so that the agents of one host start apart.
 */
static void placement_in_turn(const cpu_set_t *allowed, const struct io_plan *pp, cpu_set_t *set)
{
	int cpu[CPU_SETSIZE], n = 0;

	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed))
			cpu[n++] = c;
	CPU_ZERO(set);
	for (uint32_t i = 0; n > 0 && i < pp->io.workers && i < (uint32_t)n; i++)
		CPU_SET(cpu[(pp->phase_base + i) % (uint32_t)n], set);
}

void placement_workers(const struct kview *kv, const cpu_set_t *allowed, struct io_plan *pp,
                       const char *target)
{
	char why[320], list[64];

	pp->ncpus = 0;
	if (kv->kind != KVIEW_BLOCK || allowed == NULL)
		return;
	/* for a comparison only (tools/bench-shapes): where the scheduler puts them */
	if (getenv(PLACEMENT_ANYWHERE_ENV) != NULL) {
		log_info("workers on %s: anywhere (%s is set)", target, PLACEMENT_ANYWHERE_ENV);
		return;
	}
	switch (placement_completions(kv, &pp->cpus, why, sizeof(why))) {
	case PLACEMENT_UNKNOWN:
		log_info("workers on %s: wherever the scheduler puts them (%s: %s)", target,
		         kv->name, why);
		return;
	case PLACEMENT_SUBMITTER:
		placement_in_turn(allowed, pp, &pp->cpus);
		pp->ncpus = CPU_COUNT(&pp->cpus);
		irqcpu_format(&pp->cpus, list, sizeof(list));
		log_info("workers on %s run on CPU %s, a process on each (%s)", target, list, why);
		return;
	case PLACEMENT_IRQS:
		break;
	}
	CPU_AND(&pp->cpus, &pp->cpus, allowed);
	pp->ncpus = CPU_COUNT(&pp->cpus);
	irqcpu_format(&pp->cpus, list, sizeof(list));
	if (pp->ncpus == 0)
		log_info("workers on %s: anywhere (%s's completions land on CPUs this agent may "
		         "not use)",
		         target, kv->name);
	else
		log_info("workers on %s run on CPU %s, where %s's completions land%s%s%s", target,
		         list, kv->name, why[0] ? " (" : "", why, why[0] ? ")" : "");
}

void placement_own_cpus(const cpu_set_t *allowed, const struct io_plan *pp)
{
	cpu_set_t others;
	char list[64];

	if (allowed == NULL)
		return;
	others = *allowed;
	if (pp != NULL && pp->ncpus > 0) {
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &pp->cpus))
				CPU_CLR(c, &others);
	}
	if (pp == NULL || pp->ncpus == 0 || CPU_COUNT(&others) == 0)
		others = *allowed;
	if (sched_setaffinity(0, sizeof(others), &others) < 0)
		return;
	if (pp != NULL && pp->ncpus > 0 && !CPU_EQUAL(&others, allowed)) {
		irqcpu_format(&others, list, sizeof(list));
		log_info("the agent's own loop runs on CPU %s, beside its workers", list);
	}
}
