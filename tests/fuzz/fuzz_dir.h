/* SPDX-License-Identifier: MIT */
/*
 * A results directory from one fuzz input: the input's parts, split at the line
 * "@@", become its files in order (intervals.jsonl, meta.json, plan.yaml...); a
 * part left out takes its default (NULL: no such file).
 */
#ifndef IOCURVE_FUZZ_DIR_H
#define IOCURVE_FUZZ_DIR_H

#include <stddef.h>
#include <stdint.h>

/* The plan the seed runs used (corpus/report): what a results dir without one reads. */
extern const char fuzz_dir_default_plan[];

struct fuzz_file {
	const char *name;
	const char *dflt; /* NULL: left out when the input has no part for it */
};

/*
 * Write files[0..n) of a directory named for the process and slot (one per
 * results directory a target needs), from parts[first..] of data; returns the
 * directory (static per slot), emptied of anything a previous input left there.
 */
const char *fuzz_dir_make(unsigned slot, const uint8_t *data, size_t size, unsigned first,
                          const struct fuzz_file *files, size_t n);
/* Write files[0..n) into dir as fuzz_dir_make does, without emptying it first. */
void fuzz_dir_add(const char *dir, const uint8_t *data, size_t size, unsigned first,
                  const struct fuzz_file *files, size_t n);
/* How many parts data holds. */
unsigned fuzz_dir_parts(const uint8_t *data, size_t size);
/* stdout to /dev/null: the commands print tables a fuzzer has no use for. */
void fuzz_quiet(void);

#endif
