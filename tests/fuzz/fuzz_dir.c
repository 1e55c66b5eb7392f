/* SPDX-License-Identifier: MIT */
/* A results directory from one fuzz input (fuzz_dir.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_dir.h"

#define FUZZ_SEP     "\n@@\n"
#define FUZZ_SEP_LEN 4
#define FUZZ_SLOTS   4

const char fuzz_dir_default_plan[] =
    "campaign: small\n"
    "agents: {local: 2}\n"
    "target: {sim: {servers: 4, service_time: 200us}}\n"
    "slo: {latency: 1ms}\n"
    "interval: 200ms\n"
    "warmup: 200ms\n"
    "measure: 600ms\n"
    "workloads:\n"
    "  - {name: rr, rw: randread, block_size: 4KiB, load: {steps: [2000, 30000]}}\n";

/* Part k of data: its start and length; false when there are fewer parts. */
static int fuzz_dir_part(const uint8_t *data, size_t size, unsigned k, const uint8_t **p,
                         size_t *len)
{
	const uint8_t *s = data, *end = data + size;

	for (unsigned i = 0;; i++) {
		const uint8_t *sep = memmem(s, (size_t)(end - s), FUZZ_SEP, FUZZ_SEP_LEN);
		const uint8_t *e = sep != NULL ? sep + 1 : end; /* the part keeps its newline */

		if (i == k) {
			*p = s;
			*len = (size_t)(e - s);
			return 1;
		}
		if (sep == NULL)
			return 0;
		s = sep + FUZZ_SEP_LEN;
	}
}

unsigned fuzz_dir_parts(const uint8_t *data, size_t size)
{
	const uint8_t *p;
	size_t len;
	unsigned n = 0;

	while (fuzz_dir_part(data, size, n, &p, &len))
		n++;
	return n;
}

static void fuzz_dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
}

static void fuzz_dir_cleanup(void)
{
	char dir[128];

	for (unsigned s = 0; s < FUZZ_SLOTS; s++) {
		snprintf(dir, sizeof(dir), "%s/iocurve-fuzz-dir.%d.%u",
		         access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid(), s);
		fuzz_dir_empty(dir);
		rmdir(dir);
	}
}

const char *fuzz_dir_make(unsigned slot, const uint8_t *data, size_t size, unsigned first,
                          const struct fuzz_file *files, size_t n)
{
	static char dirs[FUZZ_SLOTS][128];
	static int registered;
	char *dir = dirs[slot % FUZZ_SLOTS];

	if (dir[0] == '\0') {
		/* tmpfs when there is one: safefile_write fsyncs every file it writes. */
		snprintf(dir, sizeof(dirs[0]), "%s/iocurve-fuzz-dir.%d.%u",
		         access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid(),
		         slot % FUZZ_SLOTS);
		mkdir(dir, 0700);
		if (!registered++)
			atexit(fuzz_dir_cleanup);
	}
	fuzz_dir_empty(dir);
	fuzz_dir_add(dir, data, size, first, files, n);
	return dir;
}

void fuzz_dir_add(const char *dir, const uint8_t *data, size_t size, unsigned first,
                  const struct fuzz_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p;
		size_t len;
		char path[256];
		FILE *f;

		if (!fuzz_dir_part(data, size, first + (unsigned)i, &p, &len)) {
			if (files[i].dflt == NULL)
				continue;
			p = (const uint8_t *)files[i].dflt;
			len = strlen(files[i].dflt);
		}
		snprintf(path, sizeof(path), "%s/%s", dir, files[i].name);
		f = fopen(path, "w");
		if (f == NULL)
			abort();
		fwrite(p, 1, len, f);
		fclose(f);
	}
}

void fuzz_quiet(void)
{
	static int done;
	int fd;

	if (done++)
		return;
	fflush(stdout);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		close(fd);
	}
}
