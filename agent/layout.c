/* SPDX-License-Identifier: MIT */
/* Target layout: create a worker's file and write it whole before any I/O. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "clock.h"
#include "fsutil.h"
#include "layout.h"
#include "log.h"
#include "units.h"
#include "verify.h"

#define LAYOUT_XATTR "user.iocurve.layout"
#define LAYOUT_CHUNK (1u << 20)
#define LAYOUT_ALIGN 4096u
/* Blocks read back to check a laid-out file's data, spread over it. */
#define LAYOUT_SAMPLES 16u
/* Each sample: a window in which some chunk of datagen's must start (chunks are <= 4KiB). */
#define LAYOUT_SAMPLE_LEN 8192u
/* The xattr's value at most: size, compress, dedupe, a clone's name and verify. */
#define LAYOUT_STAMP_MAX (112 + DATAGEN_CLONE_MAX)
/*
 * A layout with verify headers adds this to the xattr's value, naming the checksum it
 * stamped with: " verify=crc32", " verify=xxh64".
 */
#define LAYOUT_VERIFIED " verify="

/*
 * The xattr's value: size and data pattern, so a change of either lays the file out
 * again; a clone's adds its name (" clone=NAME"), which its seed follows from; a
 * layout with verify headers ends in LAYOUT_VERIFIED (layout_stamp_verified).
 */
static void layout_stamp(char *buf, size_t len, uint64_t size, const struct datagen_config *data)
{
	int n = snprintf(buf, len, "size=%" PRIu64 " compress=%u dedupe=%u", size,
	                 data ? data->compress_pct : 0, data ? data->dedupe_pct : 0);

	if (data != NULL && data->clone[0] != '\0' && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " clone=%.*s", DATAGEN_CLONE_MAX - 1,
		         data->clone);
}

/* The xattr of a layout with verify headers when data asks for them. */
static void layout_stamp_verified(char *buf, size_t len, uint64_t size,
                                  const struct datagen_config *data)
{
	size_t n;

	layout_stamp(buf, len, size, data);
	n = strlen(buf);
	if (data != NULL && data->verify)
		snprintf(buf + n, len - n, "%s%s", LAYOUT_VERIFIED,
		         verify_sum_name(verify_sum_of_method(data->verify)));
}

/* A clone's layout: every file from the clone's seed, the same bytes on every agent. */
static bool layout_is_clone(const struct datagen_config *data)
{
	return data != NULL && data->clone[0] != '\0';
}

/* What the xattr says of a file: not laid out for this plan, laid out, with verify headers. */
enum layout_found { LAYOUT_NOT_DONE, LAYOUT_PLAIN, LAYOUT_HEADERS };

/*
 * Whether the xattr records exactly this size and pattern (laid out whole before), and
 * with verify headers or not. A file with headers serves a workload without verify as
 * it is (its headers are evidence a later verify read needs); one without serves no
 * workload with verify (it has no header to check): that is laid out again.
 */
static enum layout_found layout_is_done(int fd, uint64_t size, const struct datagen_config *data)
{
	char want[LAYOUT_STAMP_MAX], have[LAYOUT_STAMP_MAX];
	size_t wl;
	ssize_t n;

	layout_stamp(want, sizeof(want), size, data);
	n = fgetxattr(fd, LAYOUT_XATTR, have, sizeof(have) - 1);
	if (n < 0)
		return LAYOUT_NOT_DONE;
	have[n] = '\0';
	wl = strlen(want);
	if (strncmp(have, want, wl) != 0)
		return LAYOUT_NOT_DONE;
	/*
	 * Headers of either checksum serve a workload of either: a read checks each block
	 * with the checksum its header names (verify.h).
	 */
	if (strcmp(have + wl, LAYOUT_VERIFIED "crc32") == 0 ||
	    strcmp(have + wl, LAYOUT_VERIFIED "xxh64") == 0)
		return LAYOUT_HEADERS;
	if (have[wl] != '\0' || (data != NULL && data->verify))
		return LAYOUT_NOT_DONE;
	return LAYOUT_PLAIN;
}

/*
 * An unaligned tail cannot go through O_DIRECT; drop the flag for that one write
 * rather than refuse sizes the block size allows.
 */
static int layout_set_direct(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -errno;
	fl = on ? (fl | O_DIRECT) : (fl & ~O_DIRECT);
	return fcntl(fd, F_SETFL, fl) < 0 ? -errno : 0;
}

int layout_hole_bytes(int fd, uint64_t size, uint64_t *holes)
{
	uint64_t pos = 0, h = 0;
	struct stat st;

	while (pos < size) {
		off_t data = lseek(fd, (off_t)pos, SEEK_DATA), end;

		if (data < 0 && errno == ENXIO)
			data = (off_t)size; /* no data past pos: the rest is a hole */
		else if (data < 0)
			goto blocks;
		if ((uint64_t)data >= size) {
			h += size - pos;
			break;
		}
		h += (uint64_t)data - pos;
		end = lseek(fd, data, SEEK_HOLE);
		if (end < 0)
			goto blocks;
		pos = (uint64_t)end > (uint64_t)data ? (uint64_t)end : size;
	}
	*holes = h;
	return 0;
blocks:
	/* No SEEK_DATA here: the blocks allocated against the size tell as much. */
	if (fstat(fd, &st) < 0)
		return -1;
	*holes = (uint64_t)st.st_blocks * 512 < size ? size - (uint64_t)st.st_blocks * 512 : 0;
	return 0;
}

/*
 * Read LAYOUT_SAMPLES windows spread over the file back and check that each holds
 * a chunk of datagen's (a clone's: of the clone's seed); *bad gets how many do not,
 * *bad_off the first one's offset.
 */
static int layout_sample(int fd, const char *path, uint64_t size, bool direct,
                         const struct datagen_config *data, bool headers, uint32_t *bad,
                         uint64_t *bad_off, struct error *err)
{
	uint32_t pct = data ? data->compress_pct : 0;
	bool clone = layout_is_clone(data);
	uint64_t want = clone ? datagen_clone_seed(data->clone) : 0, seed = 0;
	unsigned char *buf = NULL;
	int ret;

	*bad = 0;
	ret = posix_memalign((void **)&buf, LAYOUT_ALIGN, LAYOUT_SAMPLE_LEN);
	if (ret) {
		error_set(err, "%s: allocating the sample buffer: %s", path, strerror(ret));
		return -1;
	}
	/* A few reads through the page cache need no alignment; dropped from it after. */
	if (direct && (ret = layout_set_direct(fd, false)) < 0) {
		error_set(err, "%s: clearing O_DIRECT to check the layout: %s", path,
		          strerror(-ret));
		free(buf);
		return -1;
	}
	for (uint32_t i = 0; i < LAYOUT_SAMPLES; i++) {
		uint64_t off = size / LAYOUT_SAMPLES * i / LAYOUT_ALIGN * LAYOUT_ALIGN;
		ssize_t n = pread(fd, buf, LAYOUT_SAMPLE_LEN, (off_t)off);
		bool found = false;

		if (n < 0) {
			error_set(err, "%s: reading back offset %" PRIu64 ": %s", path, off,
			          strerror(errno));
			ret = -1;
			break;
		}
		/*
		 * A worker's writes may have left chunks of its block size at any sector. A
		 * clone is never written to (the campaign refuses writes on it): its samples
		 * start chunks of its own seed, else it is not the golden image any more.
		 */
		/* A file with verify headers: each sampled block's own header holds */
		if (headers) {
			struct verify_bad vb;

			found = n >= (ssize_t)VERIFY_BLOCK &&
			        verify_check(buf, VERIFY_BLOCK, off, &vb) == 0;
		} else if (clone)
			found = datagen_check_seed(buf, (size_t)n, pct, &seed) && seed == want;
		for (size_t p = 0;
		     !headers && !clone && !found && p < LAYOUT_ALIGN && p + 512 <= (size_t)n;
		     p += 512)
			found = datagen_check(buf + p, (size_t)n - p, pct);
		if (!found && (*bad)++ == 0)
			*bad_off = off;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (direct && layout_set_direct(fd, true) < 0 && ret == 0) {
		error_set(err, "%s: restoring O_DIRECT: %s", path, strerror(errno));
		ret = -1;
	}
	free(buf);
	return ret;
}

/*
 * A file the xattr says was laid out still holds its data: no holes (punched,
 * or zeroed as unwritten extents) and sampled blocks that are datagen's. 0 and
 * why[0] == '\0' when it does, 0 with why in words when it must be laid out again.
 */
static int layout_verify(int fd, const char *path, uint64_t size, bool direct,
                         const struct datagen_config *data, bool headers, char *why, size_t len,
                         struct error *err)
{
	char a[32], b[32];
	uint64_t holes = 0, off = 0;
	uint32_t bad = 0;

	why[0] = '\0';
	if (layout_hole_bytes(fd, size, &holes) < 0) {
		error_set(err, "%s: finding holes: %s", path, strerror(errno));
		return -1;
	}
	if (holes > 0) {
		units_format_size(holes, a, sizeof(a));
		units_format_size(size, b, sizeof(b));
		snprintf(why, len, "%s of %s are holes", a, b);
		return 0;
	}
	if (layout_sample(fd, path, size, direct, data, headers, &bad, &off, err) < 0)
		return -1;
	if (bad > 0 && headers)
		snprintf(why, len,
		         "%u of %u blocks read back fail their verify header (the first at offset "
		         "%" PRIu64 ")",
		         bad, LAYOUT_SAMPLES, off);
	else if (bad > 0)
		snprintf(why, len,
		         "%u of %u blocks read back are not the data its layout wrote (the first "
		         "at offset %" PRIu64 ")",
		         bad, LAYOUT_SAMPLES, off);
	return 0;
}

static int layout_write_all(int fd, const char *path, uint64_t size, bool direct,
                            const struct datagen_config *data, uint64_t *progress,
                            struct error *err)
{
	struct datagen_config dc = {.block_size = LAYOUT_CHUNK};
	struct datagen *gen;
	/* every block laid out has one generation: the layout's start */
	uint64_t off = 0, generation = clock_now_ns() + verify_realtime_offset();
	void *buf = NULL;
	int ret;

	if (data != NULL) {
		dc.compress_pct = data->compress_pct;
		dc.dedupe_pct = data->dedupe_pct;
	}
	/*
	 * Mixing in the path keeps files laid out at the same instant from deduplicating;
	 * a clone is the one image every file holds, from its name alone.
	 */
	dc.seed = clock_now_ns() ^ ((uint64_t)getpid() << 32);
	for (const char *p = path; *p; p++)
		dc.seed = dc.seed * 131 + (unsigned char)*p;
	if (layout_is_clone(data))
		dc.seed = datagen_clone_seed(data->clone);
	ret = posix_memalign(&buf, LAYOUT_ALIGN, LAYOUT_CHUNK);
	if (ret) {
		error_set(err, "%s: allocating the layout buffer: %s", path, strerror(ret));
		return -1;
	}
	gen = datagen_new(&dc);
	while (off < size) {
		size_t len = size - off < LAYOUT_CHUNK ? (size_t)(size - off) : LAYOUT_CHUNK;
		ssize_t n;

		if (direct && len % LAYOUT_ALIGN && (ret = layout_set_direct(fd, false)) < 0) {
			error_set(err, "%s: clearing O_DIRECT for the tail: %s", path,
			          strerror(-ret));
			goto err;
		}
		datagen_fill(gen, buf);
		if (data != NULL && data->verify)
			verify_stamp(buf, len, off, data->worker, generation,
			             verify_sum_of_method(data->verify));
		n = pwrite(fd, buf, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EINVAL && direct) {
			error_set(err,
			          "%s: O_DIRECT is not supported on this file system; set target "
			          "direct: false",
			          path);
			goto err;
		}
		if (n <= 0) {
			error_set(err, "%s: laying out at offset %" PRIu64 ": %s", path, off,
			          n < 0 ? strerror(errno) : "no space written");
			goto err;
		}
		off += (uint64_t)n;
		if (progress != NULL)
			*(volatile uint64_t *)progress = off;
	}
	if (direct && size % LAYOUT_ALIGN && (ret = layout_set_direct(fd, true)) < 0) {
		error_set(err, "%s: restoring O_DIRECT: %s", path, strerror(-ret));
		goto err;
	}
	if (fdatasync(fd) < 0) {
		error_set(err, "%s: fdatasync after layout: %s", path, strerror(errno));
		goto err;
	}
	free(buf);
	datagen_free(gen);
	return 0;
err:
	free(buf);
	datagen_free(gen);
	return -1;
}

static int layout_blockdev(int fd, const char *path, uint64_t size, struct error *err)
{
	uint64_t dev_size = 0;

	/* A device has no xattr to remember a layout, and no holes to fill: use it as is. */
	if (ioctl(fd, BLKGETSIZE64, &dev_size) < 0) {
		error_set(err, "%s: reading the device size: %s", path, strerror(errno));
		return -1;
	}
	if (dev_size < size) {
		error_set(err, "%s: device holds %" PRIu64 " bytes, the target needs %" PRIu64,
		          path, dev_size, size);
		return -1;
	}
	return 0;
}

/*
 * The worker file as found: a regular file of ours with one link, never a symlink,
 * device or hard link to someone else's file.
 */
static int layout_check_file(int fd, const char *path, struct stat *st, struct error *err)
{
	if (fstat(fd, st) < 0) {
		error_set(err, "%s: fstat: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		error_set(err, "%s: refusing a target file that is not a regular file", path);
		return -1;
	}
	if (st->st_uid != geteuid() || st->st_nlink != 1) {
		error_set(err,
		          "%s: refusing a target file owned by uid %u with %u links (the agent "
		          "runs as uid %u and needs a file of its own with one link)",
		          path, (unsigned)st->st_uid, (unsigned)st->st_nlink, (unsigned)geteuid());
		return -1;
	}
	return 0;
}

/*
 * A layout that failed (no space half-way, an I/O error) leaves no file it made and
 * takes back what it added to one it found: the found file goes back to its size
 * (its old data is overwritten anyway). Only the very inode laid out is unlinked.
 */
static void layout_undo(int dirfd, const char *name, const char *path, int fd, bool created,
                        const struct stat *found)
{
	struct stat now, at;

	if (!created) {
		if (fstat(fd, &now) == 0 && now.st_size > found->st_size &&
		    ftruncate(fd, found->st_size) < 0)
			log_warn("%s: cannot give back the space of a failed layout: %s", path,
			         strerror(errno));
		return;
	}
	if (fstat(fd, &now) < 0 || fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) < 0 ||
	    now.st_dev != at.st_dev || now.st_ino != at.st_ino)
		return;
	if (unlinkat(dirfd, name, 0) < 0)
		log_warn("%s: cannot remove the file of a failed layout: %s", path,
		         strerror(errno));
	else
		log_info("%s: removed after its layout failed", path);
}

int layout_open_at(int dirfd, const char *name, const char *path, uint64_t size, bool direct,
                   const struct datagen_config *data, uint64_t *progress, uint64_t *written,
                   struct error *err)
{
	int flags = O_RDWR | O_CREAT | O_CLOEXEC | (direct ? O_DIRECT : 0);
	char text[LAYOUT_STAMP_MAX], why[160];
	enum layout_found found;
	bool created = false;
	struct stat st;
	int fd;

	*written = 0;
	/* Created here or found: a failed layout removes only a file it created. */
	fd = fs_open_nofollow(dirfd, name, flags & ~O_CREAT, 0);
	if (fd < 0 && errno == ENOENT) {
		fd = fs_open_nofollow(dirfd, name, flags | O_EXCL, 0600);
		created = fd >= 0;
	}
	if (fd < 0 && errno == EINVAL && direct) {
		error_set(err,
		          "%s: O_DIRECT is not supported on this file system; set target direct: "
		          "false",
		          path);
		return -1;
	}
	if (fd < 0 && errno == ELOOP) {
		error_set(err, "%s: refusing to follow a symbolic link at the target file", path);
		return -1;
	}
	if (fd < 0) {
		error_set(err, "%s: open: %s", path, strerror(errno));
		return -1;
	}
	if (layout_check_file(fd, path, &st, err) < 0) {
		close(fd);
		return -1;
	}
	found = (uint64_t)st.st_size == size ? layout_is_done(fd, size, data) : LAYOUT_NOT_DONE;
	if (found != LAYOUT_NOT_DONE) {
		/* The xattr says laid out; holes punched or data overwritten since do not. */
		if (layout_verify(fd, path, size, direct, data, found == LAYOUT_HEADERS, why,
		                  sizeof(why), err) < 0)
			goto err;
		if (why[0] != '\0' && found == LAYOUT_HEADERS) {
			/*
			 * Damage to a file of verify headers is what verify is there to find:
			 * laying it out again would erase the evidence. Its reads report it.
			 */
			log_warn("%s: %s; kept as it is, for its reads to report", path, why);
			return fd;
		}
		if (why[0] == '\0') {
			if (layout_is_clone(data))
				log_info("%s: already the clone '%s': reused, not laid out", path,
				         data->clone);
			return fd;
		}
		log_warn("re-laying %s: %s", path, why);
	} else if ((uint64_t)st.st_size != size && fgetxattr(fd, LAYOUT_XATTR, NULL, 0) > 0) {
		log_warn("re-laying %s: its size is %" PRIu64 " bytes, the plan's %" PRIu64, path,
		         (uint64_t)st.st_size, size);
	} else if (data != NULL && data->verify && fgetxattr(fd, LAYOUT_XATTR, NULL, 0) > 0) {
		log_info(
		    "re-laying %s: the workload verifies, and its layout has no verify headers "
		    "(or another data pattern)",
		    path);
	}

	/* Forget any old layout first, so a crash below cannot leave a half-written file trusted.
	 */
	if (fremovexattr(fd, LAYOUT_XATTR) < 0 && errno != ENODATA && errno != ENOTSUP) {
		error_set(err, "%s: removing %s: %s", path, LAYOUT_XATTR, strerror(errno));
		goto err;
	}
	if (ftruncate(fd, (off_t)size) < 0) {
		error_set(err, "%s: setting the size to %" PRIu64 ": %s", path, size,
		          strerror(errno));
		goto err;
	}
	if (layout_write_all(fd, path, size, direct, data, progress, err) < 0)
		goto err;
	/* Buffered targets would otherwise start their first read step from the page cache. */
	if (!direct)
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	layout_stamp_verified(text, sizeof(text), size, data);
	if (fsetxattr(fd, LAYOUT_XATTR, text, strlen(text), 0) < 0 && errno != ENOTSUP) {
		error_set(err, "%s: setting %s: %s", path, LAYOUT_XATTR, strerror(errno));
		goto err;
	}
	if (layout_is_clone(data))
		log_info("%s: laid out as the clone '%s'", path, data->clone);
	*written = size;
	return fd;
err:
	layout_undo(dirfd, name, path, fd, created, &st);
	close(fd);
	return -1;
}

int layout_open(const char *path, uint64_t size, bool direct, const struct datagen_config *data,
                uint64_t *progress, uint64_t *written, struct error *err)
{
	const char *slash = strrchr(path, '/');
	char dir[4096];
	int dirfd, fd;

	if (slash == NULL || (size_t)(slash - path) >= sizeof(dir)) {
		error_set(err, "%s: not an absolute path", path);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		error_set(err, "%s: open: %s", path, strerror(errno));
		return -1;
	}
	fd = layout_open_at(dirfd, slash + 1, path, size, direct, data, progress, written, err);
	close(dirfd);
	return fd;
}

int layout_open_device(int pathfd, const char *path, uint64_t size, bool direct, bool writes,
                       struct error *err)
{
	int flags = (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC | (direct ? O_DIRECT : 0);
	char proc[64];
	struct stat st;
	int fd;

	/* The agent opened and checked the device; reopen that very inode, not the name. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pathfd);
	fd = pathfd >= 0 ? open(proc, flags) : fs_open_nofollow(AT_FDCWD, path, flags, 0);
	if (fd < 0) {
		error_set(err, "%s: open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		error_set(err, "%s: not a block device", path);
		close(fd);
		return -1;
	}
	if (layout_blockdev(fd, path, size, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int layout_check_space(int dirfd, const char *dir, const char *prefix, uint32_t files,
                       uint64_t size, struct error *err)
{
	char name[256], need_s[32], free_s[32], size_s[32], have_s[32];
	uint64_t need = 0, have = 0, avail;
	struct statvfs vfs;
	struct stat st;

	if (fstatvfs(dirfd, &vfs) < 0) {
		error_set(err, "target %s: statvfs: %s", dir, strerror(errno));
		return -1;
	}
	/* What a layout adds: each file's size less the blocks it already holds. */
	for (uint32_t w = 0; w < files; w++) {
		uint64_t held = 0;

		snprintf(name, sizeof(name), "%s-w%u.dat", prefix, w);
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
			held = (uint64_t)st.st_blocks * 512 < size ? (uint64_t)st.st_blocks * 512
			                                           : size;
		have += held;
		need += size - held;
	}
	/* f_bavail: what this (unprivileged) user may still allocate. */
	avail = (uint64_t)vfs.f_bavail * (vfs.f_frsize ? vfs.f_frsize : vfs.f_bsize);
	if (need <= avail)
		return 0;
	units_format_size(need, need_s, sizeof(need_s));
	units_format_size(avail, free_s, sizeof(free_s));
	units_format_size(size, size_s, sizeof(size_s));
	units_format_size(have, have_s, sizeof(have_s));
	error_set(err,
	          "target %s: not enough free space: the plan needs %s more (%u file(s) of %s, "
	          "%s of it already there) and %s is free (%" PRIu64 " bytes needed, %" PRIu64
	          " free); lower the target size or the workers",
	          dir, need_s, files, size_s, have_s, free_s, need, avail);
	return -1;
}
