/* SPDX-License-Identifier: MIT */
/* A data file laid out on an NFS export: written whole once, recorded beside it. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <nfsc/libnfs.h>

#include "clock.h"
#include "nfsconn.h"
#include "nfslayout.h"
#include "verify.h"

#define NFSLAYOUT_CHUNK (1u << 20)

const char *nfslayout_within(const struct engine_nfs_params *p, const char *url)
{
	size_t n = strlen("nfs://"), sl = strlen(p->server), el = strlen(p->export);

	if (url == NULL || strncmp(url, "nfs://", n) != 0 || strncmp(url + n, p->server, sl) != 0)
		return NULL;
	url += n + sl;
	if (strcmp(p->export, "/") != 0) {
		if (strncmp(url, p->export, el) != 0 || (url[el] != '/' && url[el] != '\0'))
			return NULL;
		url += el;
	}
	return *url == '/' ? url + 1 : url;
}

/* What the record says: the size and the data's pattern, as the local layout's xattr. */
static void nfslayout_stamp(char *buf, size_t len, uint64_t size, const struct datagen_config *d)
{
	snprintf(buf, len, "size=%" PRIu64 " compress=%u dedupe=%u clone=%s verify=%u\n", size,
	         d->compress_pct, d->dedupe_pct, d->clone, d->verify);
}

/* The record's path: .NAME.layout beside path. */
static void nfslayout_record(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		snprintf(buf, len, ".%s.layout", path);
	else
		snprintf(buf, len, "%.*s/.%s.layout", (int)(slash - path), path, slash + 1);
}

static bool nfslayout_done(struct nfs_context *nfs, const char *path, const char *rec,
                           const char *want, uint64_t size)
{
	struct nfs_stat_64 st;
	struct nfsfh *fh;
	char have[512];
	int n;

	if (nfs_stat64(nfs, path, &st) < 0 || st.nfs_size != size ||
	    nfs_open(nfs, rec, O_RDONLY, &fh) < 0)
		return false;
	n = nfs_pread(nfs, fh, 0, sizeof(have) - 1, have);
	nfs_close(nfs, fh);
	if (n < 0)
		return false;
	have[n] = '\0';
	return strcmp(have, want) == 0;
}

static int nfslayout_write(struct nfs_context *nfs, const char *url, struct nfsfh *fh,
                           uint64_t size, const struct datagen_config *data, uint64_t *progress,
                           struct error *err)
{
	struct datagen_config dc = *data;
	uint64_t off = 0, generation = clock_now_ns() + verify_realtime_offset();
	struct datagen *gen;
	char *buf = malloc(NFSLAYOUT_CHUNK);
	/* a call writes what the server takes in one (libnfs's NFSv4 does not split it) */
	uint64_t chunk = nfsconn_chunk(nfs, NFSLAYOUT_CHUNK);
	int rc = 0;

	dc.block_size = NFSLAYOUT_CHUNK;
	dc.seed = clock_now_ns();
	for (const char *p = url; *p; p++)
		dc.seed = dc.seed * 131 + (unsigned char)*p;
	if (data->clone[0] != '\0')
		dc.seed = datagen_clone_seed(data->clone);
	gen = datagen_new(&dc);
	while (rc == 0 && off < size) {
		uint64_t len = size - off < chunk ? size - off : chunk;
		int n;

		datagen_fill(gen, buf);
		if (data->verify)
			verify_stamp(buf, len, off, data->worker, generation,
			             verify_sum_of_method(data->verify));
		n = nfs_pwrite(nfs, fh, off, len, buf);
		if (n <= 0) {
			error_set(err, "%s: laying out at offset %" PRIu64 ": %s", url, off,
			          n < 0 ? nfs_get_error(nfs) : "no bytes written");
			rc = -1;
		}
		off += n > 0 ? (uint64_t)n : 0;
		if (progress != NULL)
			*(volatile uint64_t *)progress = off;
	}
	if (rc == 0 && nfs_fsync(nfs, fh) < 0) {
		error_set(err, "%s: COMMIT after layout: %s", url, nfs_get_error(nfs));
		rc = -1;
	}
	datagen_free(gen);
	free(buf);
	return rc;
}

int nfslayout_file(const struct engine_nfs_params *p, const char *path, uint64_t size,
                   const struct datagen_config *data, uint64_t *progress, uint64_t *written,
                   struct error *err)
{
	struct nfs_context *nfs = nfsconn_open(p, err);
	char rec[1100], want[512], url[2600], dir[1024];
	const char *slash = strrchr(path, '/');
	struct nfsfh *fh;
	int rc = -1;

	if (nfs == NULL)
		return -1;
	nfsconn_url(p, url, sizeof(url));
	snprintf(url + strlen(url), sizeof(url) - strlen(url), "/%s", path);
	nfslayout_record(path, rec, sizeof(rec));
	nfslayout_stamp(want, sizeof(want), size, data);
	*written = 0;
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - path) : 0, path);
	if (dir[0] != '\0' && nfsconn_mkdirs(nfs, p, dir, err) < 0)
		goto out;
	if (nfslayout_done(nfs, path, rec, want, size)) {
		rc = 0;
		goto out;
	}
	/* the record goes first: a layout cut short is never taken for a whole one */
	nfs_unlink(nfs, rec);
	if (nfsconn_open_write(nfs, path, &fh) < 0 || nfs_ftruncate(nfs, fh, 0) < 0) {
		error_set(err, "%s: creating it: %s", url, nfs_get_error(nfs));
		goto out;
	}
	rc = nfslayout_write(nfs, url, fh, size, data, progress, err);
	nfs_close(nfs, fh);
	if (rc < 0)
		goto out;
	*written = size;
	fh = NULL;
	if (nfsconn_open_write(nfs, rec, &fh) < 0 || nfs_ftruncate(nfs, fh, 0) < 0 ||
	    nfs_pwrite(nfs, fh, 0, strlen(want), want) != (int)strlen(want)) {
		error_set(err, "%s: writing its layout record: %s", url, nfs_get_error(nfs));
		rc = -1;
	}
	if (fh != NULL)
		nfs_close(nfs, fh);
out:
	nfsconn_close(nfs);
	return rc;
}
