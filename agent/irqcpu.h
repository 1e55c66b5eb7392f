/* SPDX-License-Identifier: MIT */
/*
 * Where a block device's completions land: the CPUs that take its interrupts, as
 * /proc/interrupts counts them. A worker woken by a completion on another CPU keeps two
 * CPUs waking for every operation; on a VM whose virtual disk is served from the same
 * CPU budget as its vCPUs, that alone froze the whole VM (disk included) for 5-15 ms of
 * every 100 ms (docs/methodology.md, "Where the workers run"). Workers run where their
 * completions land, so the rest of the machine stays idle.
 */
#ifndef IOCURVE_IRQCPU_H
#define IOCURVE_IRQCPU_H

#include <sched.h>
#include <stddef.h>

/* A device that has taken fewer interrupts than this since boot says nothing yet. */
#define IRQCPU_MIN_COUNT 64
/* A CPU counts when it took at least 1/IRQCPU_SHARE of the busiest CPU's interrupts. */
#define IRQCPU_SHARE 8

/*
 * The CPUs that take the interrupts of the block device whose sysfs directory is
 * disk_dir (/sys/devices/.../block/vda): its device's MSI vectors (msi_irqs/), counted
 * in /proc/interrupts. Returns how many CPUs are in *set, or 0 (why says why: no
 * interrupts of its own, as a loop device or NVMe-oF, or too few counted yet).
 */
int irqcpu_of_disk(const char *disk_dir, cpu_set_t *set, char *why, size_t len);

/*
 * The parser, apart for the tests: the CPUs among /proc/interrupts' text that took the
 * interrupts numbered irqs[0..nirqs), by the rule above; how many, or 0.
 */
int irqcpu_parse(const char *text, const int *irqs, int nirqs, cpu_set_t *set);

/* "1" or "0-3,6": the set as a CPU list, for the log. */
void irqcpu_format(const cpu_set_t *set, char *buf, size_t len);

#endif
