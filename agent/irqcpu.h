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
 * Where a block device's completions land, the loop devices' included: a loop device's
 * are its backing disk's (a file on vda: vda's interrupts, sent on to the loop), or, for a
 * backing file in memory (tmpfs, ramfs), on the CPU that submitted the request: the
 * loop's kernel thread completes it there through ksoftirqd, which wakes the worker; a
 * worker left to move is woken on the other, idle CPU each time (traced: 84-98 us a 4 KiB
 * read against 18-36 us kept on one CPU). IRQCPU_IRQS: the CPUs in *set;
 * IRQCPU_SUBMITTER: wherever the worker runs, so keep each on one CPU; IRQCPU_UNKNOWN:
 * why says why.
 */
enum irqcpu_where { IRQCPU_UNKNOWN, IRQCPU_IRQS, IRQCPU_SUBMITTER };
enum irqcpu_where irqcpu_of_block(const char *disk_dir, cpu_set_t *set, char *why, size_t len);

/*
 * The parser, apart for the tests: the CPUs among /proc/interrupts' text that took the
 * interrupts numbered irqs[0..nirqs), by the rule above; how many, or 0.
 */
int irqcpu_parse(const char *text, const int *irqs, int nirqs, cpu_set_t *set);

/* "1" or "0-3,6": the set as a CPU list, for the log. */
void irqcpu_format(const cpu_set_t *set, char *buf, size_t len);

#endif
