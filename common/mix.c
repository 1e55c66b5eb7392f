/* SPDX-License-Identifier: MIT */
/* Mixes: the wire form both ways, bounded on the way in, and the interleave. */
#include <stdio.h>
#include <string.h>

#include "mix.h"
#include "text.h"
#include "units.h"

/* A size the agent takes (the block_size row's bounds: O_DIRECT sectors, 16 MiB buffers). */
#define MIX_SIZE_MIN  512u
#define MIX_SIZE_MAX  (16u << 20)
#define MIX_SIZE_STEP 512u

uint32_t mix_sizes_max(const struct mix_sizes *s)
{
	uint32_t max = 0;

	for (uint32_t i = 0; i < s->n; i++)
		if (s->s[i].bytes > max)
			max = s->s[i].bytes;
	return max;
}

enum fileop mix_op(const struct mix *m, int k)
{
	return k >= 0 && (uint32_t)k < m->nparts ? m->parts[k].op : m->op;
}

/* Some operation moves a whole file: every slot's buffer holds the set's largest file. */
static bool mix_moves_files(const struct mix *m)
{
	bool moves = fileop_moves_data(m->op);

	for (uint32_t i = 0; i < m->nparts; i++)
		moves |= fileop_moves_data(m->parts[i].op);
	return moves && mix_is_files(m);
}

uint64_t mix_fileset_leaves(const struct mix_fileset *f)
{
	uint64_t n = 1;

	for (uint32_t i = 0; i < f->depth && n <= MIX_FILESET_FILES_MAX; i++)
		n *= f->dirs;
	return n;
}

uint64_t mix_fileset_files(const struct mix_fileset *f)
{
	return f->dirs ? mix_fileset_leaves(f) * f->files : 0;
}

uint64_t mix_fileset_bytes(const struct mix_fileset *f)
{
	return (uint64_t)((double)mix_fileset_files(f) * mix_sizes_mean(&f->sizes, 0));
}

void mix_fileset_text(const struct mix_fileset *f, char *buf, size_t len)
{
	char sz[128];

	mix_sizes_text(&f->sizes, sz, sizeof(sz));
	if (f->sizes.n == 1)
		units_format_size(f->sizes.s[0].bytes, sz, sizeof(sz));
	if (f->depth > 1)
		snprintf(buf, len, "%u^%u dirs x %u files of %s", f->dirs, f->depth, f->files, sz);
	else
		snprintf(buf, len, "%u dirs x %u files of %s", f->dirs, f->files, sz);
}

uint32_t mix_block_max(const struct mix *m)
{
	uint32_t max = mix_sizes_max(&m->sizes);

	if (mix_moves_files(m) && mix_sizes_max(&m->fileset.sizes) > max)
		max = mix_sizes_max(&m->fileset.sizes);

	for (uint32_t i = 0; i < m->nparts; i++)
		if (m->parts[i].block_size > max)
			max = m->parts[i].block_size;
	return max;
}

double mix_sizes_mean(const struct mix_sizes *s, uint32_t size)
{
	double sum = 0;

	if (s->n == 0)
		return size;
	for (uint32_t i = 0; i < s->n; i++)
		sum += (double)s->s[i].bytes * s->s[i].pct / 100.0;
	return sum;
}

double mix_mean_bytes(const struct mix *m, uint32_t block_size)
{
	double sum = 0;

	if (m->nparts == 0)
		return mix_sizes_mean(&m->sizes, block_size);
	for (uint32_t i = 0; i < m->nparts; i++)
		sum += mix_sizes_mean(&m->parts[i].sizes, m->parts[i].block_size) *
		       m->parts[i].share / 100.0;
	return sum;
}

int mix_part_find(const struct mix *m, const char *name)
{
	for (uint32_t i = 0; i < m->nparts; i++)
		if (strcmp(m->parts[i].name, name) == 0)
			return (int)i;
	return -1;
}

static void mix_sizes_out(const struct mix_sizes *s, Iocurve__MixSize *sz, Iocurve__MixSize **szp,
                          size_t *n, Iocurve__MixSize ***out)
{
	for (uint32_t i = 0; i < s->n; i++) {
		iocurve__mix_size__init(&sz[i]);
		sz[i].bytes = s->s[i].bytes;
		sz[i].pct = s->s[i].pct;
		szp[i] = &sz[i];
	}
	*n = s->n;
	*out = s->n ? szp : NULL;
}

void mix_to_prepare(const struct mix *m, struct mix_wire *w, Iocurve__Prepare *p)
{
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct mix_part *mp = &m->parts[i];
		Iocurve__MixPart *wp = &w->parts[i];

		iocurve__mix_part__init(wp);
		wp->name = (char *)mp->name;
		wp->share = mp->share;
		wp->rw = (Iocurve__RwMode)mp->rw;
		wp->read_pct = mp->read_pct;
		wp->block_size = mp->block_size;
		wp->op = (Iocurve__FileOp)mp->op;
		mix_sizes_out(&mp->sizes, w->sizes[i], w->sizep[i], &wp->n_sizes, &wp->sizes);
		w->partp[i] = wp;
	}
	p->n_mix = m->nparts;
	p->mix = m->nparts ? w->partp : NULL;
	mix_sizes_out(&m->sizes, w->sizes[MIX_PARTS_MAX], w->sizep[MIX_PARTS_MAX], &p->n_sizes,
	              &p->sizes);
	p->op = (Iocurve__FileOp)m->op;
	p->fileset = NULL;
	if (mix_is_files(m)) {
		iocurve__file_set__init(&w->fileset);
		w->fileset.dirs = m->fileset.dirs;
		w->fileset.depth = m->fileset.depth;
		w->fileset.files = m->fileset.files;
		mix_sizes_out(&m->fileset.sizes, w->fsizes, w->fsizep, &w->fileset.n_sizes,
		              &w->fileset.sizes);
		p->fileset = &w->fileset;
	}
}

/* A distribution from the wire: field names it ("mix[1].sizes", "sizes"). */
static int mix_sizes_in(const char *field, size_t n, Iocurve__MixSize *const *in,
                        struct mix_sizes *s, struct error *err)
{
	uint32_t sum = 0;

	s->n = 0;
	if (n == 0)
		return 0;
	if (n > MIX_SIZES_MAX) {
		error_set(err, "Prepare field %s has %zu sizes, over its bound of %d", field, n,
		          MIX_SIZES_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t b = in[i]->bytes, pct = in[i]->pct;

		if (b < MIX_SIZE_MIN || b > MIX_SIZE_MAX || b % MIX_SIZE_STEP != 0) {
			error_set(
			    err,
			    "Prepare field %s[%zu].bytes %u is out of its bounds (512..16777216, "
			    "a multiple of 512)",
			    field, i, b);
			return -1;
		}
		if (pct < 1 || pct > 100) {
			error_set(err, "Prepare field %s[%zu].pct %u is out of its bounds (1..100)",
			          field, i, pct);
			return -1;
		}
		sum += pct;
		s->s[i] = (struct mix_size){b, pct};
	}
	if (sum != 100) {
		error_set(err, "Prepare field %s: its shares add up to %u, not 100", field, sum);
		return -1;
	}
	s->n = (uint32_t)n;
	return 0;
}

static int mix_part_in(const Iocurve__MixPart *in, uint32_t i, struct mix *m, struct error *err)
{
	struct mix_part *mp = &m->parts[i];
	char field[32];

	snprintf(field, sizeof(field), "mix[%u]", i);
	if (in->name == NULL || !text_name_ok(in->name) || strlen(in->name) >= MIX_NAME_MAX) {
		error_set(err,
		          "Prepare field %s.name is not a part name (letters, digits, '.', '_' and "
		          "'-', 1 to %d characters)",
		          field, MIX_NAME_MAX - 1);
		return -1;
	}
	snprintf(mp->name, sizeof(mp->name), "%s", in->name);
	if (mix_part_find(m, mp->name) >= 0) {
		error_set(err, "Prepare field %s.name '%s' names an earlier part too", field,
		          mp->name);
		return -1;
	}
	if (in->share < 1 || in->share > 100) {
		error_set(err, "Prepare field %s.share %u is out of its bounds (1..100)", field,
		          in->share);
		return -1;
	}
	if ((unsigned)in->rw >= RW_MODE_COUNT) {
		error_set(err, "Prepare field %s.rw %d is out of its bounds (0..%d)", field,
		          (int)in->rw, RW_MODE_COUNT - 1);
		return -1;
	}
	if ((unsigned)in->op >= FILEOP_COUNT) {
		error_set(err, "Prepare field %s.op %d is out of its bounds (0..%d)", field,
		          (int)in->op, FILEOP_COUNT - 1);
		return -1;
	}
	mp->op = (enum fileop)in->op;
	if (in->read_pct > 100) {
		error_set(err, "Prepare field %s.read_pct %u is out of its bounds (0..100)", field,
		          in->read_pct);
		return -1;
	}
	if (in->block_size < MIX_SIZE_MIN || in->block_size > MIX_SIZE_MAX ||
	    in->block_size % MIX_SIZE_STEP != 0) {
		error_set(err,
		          "Prepare field %s.block_size %u is out of its bounds (512..16777216, a "
		          "multiple of 512)",
		          field, in->block_size);
		return -1;
	}
	mp->share = in->share;
	mp->rw = (enum rw_mode)in->rw;
	mp->read_pct = in->read_pct;
	mp->block_size = in->block_size;
	strcat(field, ".sizes");
	if (mix_sizes_in(field, in->n_sizes, in->sizes, &mp->sizes, err) < 0)
		return -1;
	if (mp->sizes.n > 0 && mix_sizes_max(&mp->sizes) != mp->block_size) {
		error_set(
		    err, "Prepare field mix[%u].block_size %u is not the largest of its sizes (%u)",
		    i, mp->block_size, mix_sizes_max(&mp->sizes));
		return -1;
	}
	return 0;
}

/*
 * Prepare's op and fileset: a file set's shape within its bounds, file operations only
 * on a file set, and a file set's workload made of file operations only.
 */
static int mix_files_in(const Iocurve__Prepare *p, struct mix *m, struct error *err)
{
	const Iocurve__FileSet *f = p->fileset;
	bool data = m->nparts == 0 && p->op == IOCURVE__FILE_OP__FILE_OP_NONE, ops = false;

	if ((unsigned)p->op >= FILEOP_COUNT) {
		error_set(err, "Prepare field op %d is out of its bounds (0..%d)", (int)p->op,
		          FILEOP_COUNT - 1);
		return -1;
	}
	m->op = m->nparts > 0 ? FILEOP_NONE : (enum fileop)p->op;
	ops = m->op != FILEOP_NONE;
	for (uint32_t i = 0; i < m->nparts; i++) {
		data |= m->parts[i].op == FILEOP_NONE;
		ops |= m->parts[i].op != FILEOP_NONE;
	}
	if (f == NULL) {
		if (!ops)
			return 0;
		error_set(err, "Prepare has file operations (op) but no fileset to run them on");
		return -1;
	}
	if (data) {
		error_set(err, "Prepare field fileset is given with reads and writes at offsets "
		               "(rw): a file set's operations are file operations (op)");
		return -1;
	}
	if (f->dirs < 1 || f->dirs > MIX_FILESET_FILES_MAX || f->depth < 1 ||
	    f->depth > MIX_FILESET_DEPTH_MAX || f->files < 1 || f->files > MIX_FILESET_FILES_MAX) {
		error_set(
		    err,
		    "Prepare field fileset {dirs %u, depth %u, files %u} is out of its bounds "
		    "(dirs and files at least 1, depth 1..%d)",
		    f->dirs, f->depth, f->files, MIX_FILESET_DEPTH_MAX);
		return -1;
	}
	m->fileset.dirs = f->dirs;
	m->fileset.depth = f->depth;
	m->fileset.files = f->files;
	if (mix_fileset_files(&m->fileset) > MIX_FILESET_FILES_MAX) {
		error_set(err,
		          "Prepare field fileset holds %llu files per stream, over its bound "
		          "of %u",
		          (unsigned long long)mix_fileset_files(&m->fileset),
		          MIX_FILESET_FILES_MAX);
		return -1;
	}
	if (f->n_sizes == 0) {
		error_set(err, "Prepare field fileset.sizes is empty (a file set's files have a "
		               "size)");
		return -1;
	}
	return mix_sizes_in("fileset.sizes", f->n_sizes, f->sizes, &m->fileset.sizes, err);
}

int mix_from_prepare(const Iocurve__Prepare *p, struct mix *m, struct error *err)
{
	uint32_t sum = 0;

	memset(m, 0, sizeof(*m));
	if (p->n_mix > MIX_PARTS_MAX) {
		error_set(err, "Prepare field mix has %zu parts, over its bound of %d", p->n_mix,
		          MIX_PARTS_MAX);
		return -1;
	}
	if (p->n_mix > 0 && p->n_sizes > 0) {
		error_set(err, "Prepare fields mix and sizes are both given (a mix's sizes are "
		               "its parts')");
		return -1;
	}
	for (uint32_t i = 0; i < p->n_mix; i++) {
		if (mix_part_in(p->mix[i], i, m, err) < 0)
			return -1;
		sum += m->parts[i].share;
		m->nparts = i + 1;
	}
	if (p->n_mix > 0 && sum != 100) {
		error_set(err, "Prepare field mix: its parts' shares add up to %u, not 100", sum);
		return -1;
	}
	if (mix_sizes_in("sizes", p->n_sizes, p->sizes, &m->sizes, err) < 0)
		return -1;
	if (mix_files_in(p, m, err) < 0)
		return -1;
	/* the workers' buffers are block_size long: every operation must fit */
	if ((m->nparts > 0 || m->sizes.n > 0 || mix_moves_files(m)) &&
	    mix_block_max(m) != p->block_size) {
		error_set(err,
		          "Prepare field block_size %u is not the largest block of the mix (%u)",
		          p->block_size, mix_block_max(m));
		return -1;
	}
	return 0;
}

void mix_sizes_text(const struct mix_sizes *s, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < s->n && off < len; i++) {
		char b[16];

		units_format_size(s->s[i].bytes, b, sizeof(b));
		off +=
		    (size_t)snprintf(buf + off, len - off, "%s%s:%u", i ? "," : "", b, s->s[i].pct);
	}
}

void mix_part_text(const struct mix_part *mp, char *buf, size_t len)
{
	char b[128];
	size_t off;

	if (mp->op != FILEOP_NONE) {
		snprintf(buf, len, "%s", fileop_name(mp->op));
		return;
	}
	if (mp->sizes.n > 0)
		mix_sizes_text(&mp->sizes, b, sizeof(b));
	else
		units_format_size(mp->block_size, b, sizeof(b));
	off = (size_t)snprintf(buf, len, "%s %s", rw_mode_name(mp->rw), b);
	if (rw_is_mix(mp->rw) && off < len)
		snprintf(buf + off, len - off, " read_pct %u", mp->read_pct);
}

void mix_text(const struct mix *m, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < m->nparts && off < len; i++) {
		const struct mix_part *mp = &m->parts[i];
		char b[160];

		mix_part_text(mp, b, sizeof(b));
		off += (size_t)snprintf(buf + off, len - off, "%s%s %u%% %s", i ? ", " : "",
		                        mp->name, mp->share, b);
	}
}

const char *mix_kind_name(const struct mix *m, enum rw_mode rw)
{
	if (mix_is_files(m))
		return m->nparts > 0 ? "file ops" : fileop_name(m->op);
	return rw_mode_name(rw);
}

bool mix_shape_text(const struct mix *m, const char *rw, char *buf, size_t len)
{
	char t[512], set[160] = "";

	buf[0] = '\0';
	if (mix_is_files(m)) {
		mix_fileset_text(&m->fileset, set, sizeof(set));
		if (m->nparts > 0)
			mix_text(m, t, sizeof(t));
		snprintf(buf, len, "%s%s on %s", m->nparts > 0 ? "mix: " : fileop_name(m->op),
		         m->nparts > 0 ? t : "", set);
	} else if (m->nparts > 0) {
		mix_text(m, t, sizeof(t));
		snprintf(buf, len, "mix: %s", t);
	} else if (m->sizes.n > 0) {
		mix_sizes_text(&m->sizes, t, sizeof(t));
		snprintf(buf, len, "%s, %s blocks", rw, t);
	}
	return buf[0] != '\0';
}

unsigned mix_pick(int32_t *credit, const uint32_t *weight, unsigned n)
{
	int32_t total = 0;
	unsigned best = 0;

	for (unsigned i = 0; i < n; i++) {
		credit[i] += (int32_t)weight[i];
		total += (int32_t)weight[i];
		if (credit[i] > credit[best])
			best = i;
	}
	credit[best] -= total;
	return best;
}
