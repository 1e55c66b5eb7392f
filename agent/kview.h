/* SPDX-License-Identifier: MIT */
/*
 * The kernel's own account of a target's I/O: the block device's counters in
 * /sys/dev/block/MAJ:MIN/stat, or an NFS mount's READ and WRITE RPCs in
 * /proc/self/mountstats. The agent reads them at each interval's end (never the
 * workers, never per operation): they say what the device took apart from what the
 * client added, and they do not depend on the client's scheduling.
 */
#ifndef IOCURVE_KVIEW_H
#define IOCURVE_KVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

/* Counters as the kernel keeps them (since boot, or since the mount). */
struct kview_counts {
	uint64_t reads, writes; /* completed (stat fields 1, 5) */
	uint64_t io_ms;         /* ms spent on them (fields 4 + 8) */
	uint64_t busy_ms;       /* io_ticks (field 10) */
	uint64_t queue_ms;      /* time_in_queue (field 11) */
	uint64_t nfs_ops;       /* READ + WRITE RPCs */
	uint64_t nfs_rtt_ms;    /* their round trip times, summed */
	uint64_t nfs_exec_ms;   /* their execution times, summed */
};

enum kview_kind { KVIEW_NONE, KVIEW_BLOCK, KVIEW_NFS };

struct kview {
	enum kview_kind kind;
	char name[RECORD_DEV_MAX]; /* "vda", "loop3", "nfs srv:/export" */
	char stat[256];            /* KVIEW_BLOCK: the stat file read */
	char mnt[256];             /* KVIEW_NFS: the mount point, as mountstats escapes it */
	struct kview_counts last;  /* at the last sample */
	bool have_last;
};

/*
 * Which counters move for I/O on a file of device dev (a file's st_dev, or a block
 * device target's st_rdev): a partition's whole disk (its queue is the one that
 * saturates, and traffic on its other partitions shares it), a loop device as itself
 * (not the device of its backing file), an NFS mount by its mount. kv->kind is
 * KVIEW_NONE (why says why: tmpfs, an unknown device) when none can be read.
 */
void kview_resolve(struct kview *kv, dev_t dev, char *why, size_t len);
/* A KVIEW_BLOCK view's sysfs directory of its disk (its stat file's), into dir. */
void kview_disk_dir(const struct kview *kv, char *dir, size_t len);
/*
 * Sample the counters: true with their change since the last sample in d; false the
 * first time, or when they cannot be read (d all 0).
 */
bool kview_sample(struct kview *kv, struct kview_counts *d);

/* Parsers, apart for the tests: 0, or -1 when the text is not what the kernel writes. */
int kview_parse_stat(const char *text, struct kview_counts *c);
/* The READ and WRITE lines of the mount at mnt (escaped as mountstats writes it). */
int kview_parse_mountstats(const char *text, const char *mnt, struct kview_counts *c);

#endif
