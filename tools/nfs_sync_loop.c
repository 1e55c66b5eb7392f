/* SPDX-License-Identifier: MIT */
/*
 * libnfs's own synchronous client, the peer of tools/bench-nfs: one call at a time, random
 * reads (or writes) of SIZE bytes within the first BYTES of FILE on an export, for SECONDS.
 * Prints "ops N ops_s X mean_us M p99_us P". Not installed.
 *   iocurve-nfs-sync SERVER EXPORT FILE SIZE BYTES SECONDS [write]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <nfsc/libnfs.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct nfs_context *nfs;
	struct nfsfh *fh;
	uint64_t size, bytes, end, n = 0, cap = 1u << 22, sum = 0, rng = 88172645463325252ull;
	uint64_t *lat;
	bool write;
	char *buf;

	if (argc < 7) {
		fprintf(stderr, "usage: %s SERVER EXPORT FILE SIZE BYTES SECONDS [write]\n", argv[0]);
		return 2;
	}
	size = strtoull(argv[4], NULL, 10);
	bytes = strtoull(argv[5], NULL, 10);
	write = argc > 7 && strcmp(argv[7], "write") == 0;
	buf = calloc(1, size);
	lat = malloc(cap * sizeof(*lat));
	nfs = nfs_init_context();
	if (nfs == NULL || buf == NULL || lat == NULL || size == 0 || bytes < size)
		return 1;
	nfs_set_uid(nfs, 65534);
	nfs_set_gid(nfs, 65534);
	if (nfs_mount(nfs, argv[1], argv[2]) < 0 ||
	    nfs_open(nfs, argv[3], write ? O_RDWR : O_RDONLY, &fh) < 0) {
		fprintf(stderr, "%s\n", nfs_get_error(nfs));
		return 1;
	}
	end = now_ns() + strtoull(argv[6], NULL, 10) * 1000000000ull;
	for (uint64_t t = now_ns(); t < end && n < cap; n++) {
		uint64_t off, t1;
		int rc;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		off = rng % (bytes / size) * size;
		rc = write ? nfs_pwrite(nfs, fh, off, size, buf) : nfs_pread(nfs, fh, off, size, buf);
		t1 = now_ns();
		if (rc != (int)size) {
			fprintf(stderr, "call %llu: %s\n", (unsigned long long)n, nfs_get_error(nfs));
			return 1;
		}
		lat[n] = t1 - t;
		sum += t1 - t;
		t = t1;
	}
	qsort(lat, n, sizeof(*lat), cmp_u64);
	printf("ops %llu ops_s %.0f mean_us %.1f p99_us %.1f\n", (unsigned long long)n,
	       (double)n / ((double)strtoull(argv[6], NULL, 10)), (double)sum / (double)n / 1e3,
	       (double)lat[n * 99 / 100] / 1e3);
	nfs_close(nfs, fh);
	nfs_destroy_context(nfs);
	free(lat);
	free(buf);
	return 0;
}
