/* SPDX-License-Identifier: MIT */
/* File sets and file operations, read from the campaign file. */
#include <stdio.h>
#include <string.h>

#include "fileparse.h"
#include "sizeparse.h"

static const char *const fileparse_keys[] = {"dirs", "depth", "files", "size", NULL};

int fileparse_fileset(struct yamlnode_doc *y, const yaml_node_t *n, struct mix_fileset *f)
{
	yaml_node_t *v;

	memset(f, 0, sizeof(*f));
	if (yamlnode_check_mapping(y, n, "fileset", "fileset", fileparse_keys) < 0 ||
	    yamlnode_require(y, n, "dirs", "fileset", &v) < 0 ||
	    yamlnode_uint(y, v, "fileset.dirs", 1, MIX_FILESET_FILES_MAX, &f->dirs) < 0 ||
	    yamlnode_require(y, n, "files", "fileset", &v) < 0 ||
	    yamlnode_uint(y, v, "fileset.files", 1, MIX_FILESET_FILES_MAX, &f->files) < 0)
		return -1;
	f->depth = 1;
	if ((v = yamlnode_lookup(y, n, "depth")) != NULL &&
	    yamlnode_uint(y, v, "fileset.depth", 1, MIX_FILESET_DEPTH_MAX, &f->depth) < 0)
		return -1;
	if (mix_fileset_files(f) > MIX_FILESET_FILES_MAX) {
		yamlnode_error(y, n,
		               "fileset: %u^%u directories of %u files is %llu files per stream, "
		               "over the bound of %u",
		               f->dirs, f->depth, f->files,
		               (unsigned long long)mix_fileset_files(f), MIX_FILESET_FILES_MAX);
		return -1;
	}
	f->sizes.n = 1;
	f->sizes.s[0] = (struct mix_size){4096, 100};
	if ((v = yamlnode_lookup(y, n, "size")) != NULL) {
		uint32_t max;
		uint64_t bytes;

		if (v->type == YAML_MAPPING_NODE)
			return sizeparse_dist(y, v, "fileset.size", &f->sizes, &max);
		if (yamlnode_size(y, v, "fileset.size", &bytes) < 0)
			return -1;
		if (bytes < 512 || bytes > (16u << 20) || bytes % 512 != 0) {
			yamlnode_expected(y, v, "fileset.size", "a multiple of 512B up to 16MiB");
			return -1;
		}
		f->sizes.s[0].bytes = (uint32_t)bytes;
	}
	return 0;
}

int fileparse_op(struct yamlnode_doc *y, const yaml_node_t *n, const char *label, enum fileop *op)
{
	const char *s = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";
	const char *near;

	if (fileop_parse(s, op) == 0)
		return 0;
	near = n->type == YAML_SCALAR_NODE ? yamlnode_nearest(s, fileop_names) : NULL;
	if (near != NULL)
		yamlnode_error(y, n, "%s: '%s' is not a file operation; did you mean '%s'?", label,
		               s, near);
	else
		yamlnode_expected(y, n, label,
		                  "create, open, stat, access, setattr, readdir, mkdir, rmdir, "
		                  "unlink, rename, read-file or write-file");
	return -1;
}

/* The node of key in the workload's mapping, else the mapping itself. */
static const yaml_node_t *fileparse_at(struct yamlnode_doc *y, const yaml_node_t *at,
                                       const char *key)
{
	const yaml_node_t *n = at != NULL ? yamlnode_lookup(y, at, key) : NULL;

	return n != NULL ? n : at;
}

int fileparse_finish(struct yamlnode_doc *y, const yaml_node_t *at, const char *workload,
                     struct io_settings *io)
{
	struct mix *m = &io->mix;
	bool ops = m->nparts == 0 && m->op != FILEOP_NONE, data = m->nparts == 0 && !ops;
	bool modifies = fileop_modifies(m->op);
	const char *first = m->nparts == 0 ? fileop_name(m->op) : NULL;

	if (m->nparts > 0)
		m->op = FILEOP_NONE; /* a mix's kinds are its parts' */
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct mix_part *p = &m->parts[i];

		data |= p->op == FILEOP_NONE;
		ops |= p->op != FILEOP_NONE;
		modifies |= fileop_modifies(p->op);
		if (p->op != FILEOP_NONE && first == NULL)
			first = fileop_name(p->op);
	}
	if (!mix_is_files(m)) {
		if (!ops)
			return 0;
		yamlnode_error(y, fileparse_at(y, at, m->nparts ? "mix" : "op"),
		               "workload '%s': file operations (%s) need a file set to run on, "
		               "e.g. fileset: {dirs: 10, files: 100, size: 4KiB}",
		               workload, first);
		return -1;
	}
	if (data && m->nparts == 0 && (at == NULL || yamlnode_lookup(y, at, "fileset") == NULL)) {
		/* the top level's file set is the default of the file workloads only */
		memset(&m->fileset, 0, sizeof(m->fileset));
		return 0;
	}
	if (data) {
		yamlnode_error(y, fileparse_at(y, at, m->nparts ? "mix" : "fileset"),
		               "workload '%s': a file set's operations are file operations (op: "
		               "create, stat, read-file, ...); %s",
		               workload,
		               m->nparts ? "every part of the mix needs an op"
		                         : "give the workload an op, or a mix of them");
		return -1;
	}
	if (m->nparts == 0 && io->mix.sizes.n > 0) {
		yamlnode_error(y, fileparse_at(y, at, "block_size"),
		               "workload '%s': a file set's sizes are its files' (fileset.size), "
		               "not a block_size distribution",
		               workload);
		return -1;
	}
	/* mixparse_finish makes the workload's rw and block_size of the parts' */
	for (uint32_t i = 0; i < m->nparts; i++)
		m->parts[i].rw = fileop_modifies(m->parts[i].op) ? RW_RANDWRITE : RW_RANDREAD;
	if (m->nparts > 0)
		return 0;
	io->rw = modifies ? RW_RANDWRITE : RW_RANDREAD;
	io->read_pct = modifies ? 0 : 100;
	if (mix_block_max(m) > 0)
		io->block_size = mix_block_max(m);
	return 0;
}
