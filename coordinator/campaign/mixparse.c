/* SPDX-License-Identifier: MIT */
/* mix: and block_size distributions, read from the campaign file. */
#include <stdio.h>
#include <string.h>

#include "fileparse.h"
#include "mixparse.h"
#include "sizeparse.h"
#include "text.h"
#include "units.h"

static const char *const mixparse_part_keys[] = {"name",       "share",    "rw", "access",
                                                 "block_size", "read_pct", "op", NULL};

#define MIXPARSE_RW_EXPECTED "read, write, randread, randwrite, rw or randrw"

/* access: random or sequential, over the part's rw: randread <-> read and so on. */
static int mixparse_access(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                           enum rw_mode *rw)
{
	static const enum rw_mode seq[] = {RW_READ, RW_WRITE, RW_READ, RW_WRITE, RW_RW, RW_RW};
	static const enum rw_mode rnd[] = {RW_RANDREAD,  RW_RANDWRITE, RW_RANDREAD,
	                                   RW_RANDWRITE, RW_RANDRW,    RW_RANDRW};
	const char *a = n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : "";

	if (strcmp(a, "random") == 0)
		*rw = rnd[*rw];
	else if (strcmp(a, "sequential") == 0)
		*rw = seq[*rw];
	else {
		yamlnode_expected(y, n, label, "random or sequential");
		return -1;
	}
	return 0;
}

static int mixparse_part(struct yamlnode_doc *y, const yaml_node_t *n, uint32_t index,
                         const struct io_settings *io, struct mix_part *mp)
{
	char what[64], label[96];
	const char *name;
	yaml_node_t *v;

	snprintf(what, sizeof(what), "mix part %u", index + 1);
	if ((v = n->type == YAML_MAPPING_NODE ? yamlnode_lookup(y, n, "name") : NULL) != NULL &&
	    v->type == YAML_SCALAR_NODE && v->data.scalar.length < MIX_NAME_MAX)
		snprintf(what, sizeof(what), "mix part '%s'", (const char *)v->data.scalar.value);
	if (yamlnode_check_mapping(y, n, "mix", what, mixparse_part_keys) < 0 ||
	    yamlnode_require(y, n, "name", what, &v) < 0 ||
	    yamlnode_string(y, v, "name", &name) < 0)
		return -1;
	if (!text_name_ok(name) || strlen(name) >= MIX_NAME_MAX) {
		yamlnode_expected(y, v, "name",
		                  "a part name of letters, digits, '.', '_' and '-', at most 31");
		return -1;
	}
	snprintf(mp->name, sizeof(mp->name), "%s", name);
	snprintf(label, sizeof(label), "%s share", what);
	if (yamlnode_require(y, n, "share", what, &v) < 0 ||
	    yamlnode_uint(y, v, label, 1, 100, &mp->share) < 0)
		return -1;
	/* what a part does not say is the workload's */
	mp->rw = io->rw;
	mp->block_size = io->block_size;
	mp->sizes = io->mix.sizes;
	mp->read_pct = SETTING_READ_PCT_UNSET;
	mp->op = FILEOP_NONE;
	snprintf(label, sizeof(label), "%s op", what);
	if ((v = yamlnode_lookup(y, n, "op")) != NULL && fileparse_op(y, v, label, &mp->op) < 0)
		return -1;
	/* rw: read-file and write-file are whole-file operations of a file set */
	if ((v = yamlnode_lookup(y, n, "rw")) != NULL && v->type == YAML_SCALAR_NODE &&
	    (strcmp((const char *)v->data.scalar.value, "read-file") == 0 ||
	     strcmp((const char *)v->data.scalar.value, "write-file") == 0)) {
		if (mp->op != FILEOP_NONE) {
			yamlnode_error(y, v, "%s: give its op or rw: %s, not both", what,
			               (const char *)v->data.scalar.value);
			return -1;
		}
		fileop_parse((const char *)v->data.scalar.value, &mp->op);
	} else if (v != NULL && (v->type != YAML_SCALAR_NODE ||
	                         rw_mode_parse((const char *)v->data.scalar.value, &mp->rw) < 0)) {
		snprintf(label, sizeof(label), "%s rw", what);
		yamlnode_expected(y, v, label, MIXPARSE_RW_EXPECTED ", or read-file or write-file");
		return -1;
	}
	snprintf(label, sizeof(label), "%s access", what);
	if ((v = yamlnode_lookup(y, n, "access")) != NULL &&
	    mixparse_access(y, v, label, &mp->rw) < 0)
		return -1;
	snprintf(label, sizeof(label), "%s block_size", what);
	if ((v = yamlnode_lookup(y, n, "block_size")) != NULL) {
		uint64_t bytes;

		if (v->type == YAML_MAPPING_NODE) {
			if (sizeparse_dist(y, v, label, &mp->sizes, &mp->block_size) < 0)
				return -1;
		} else if (yamlnode_size(y, v, label, &bytes) < 0) {
			return -1;
		} else if (bytes < 512 || bytes > (16u << 20) || bytes % 512 != 0) {
			yamlnode_expected(y, v, label, "a multiple of 512B up to 16MiB");
			return -1;
		} else {
			mp->block_size = (uint32_t)bytes;
			mp->sizes.n = 0;
		}
	}
	snprintf(label, sizeof(label), "%s read_pct", what);
	if ((v = yamlnode_lookup(y, n, "read_pct")) != NULL &&
	    yamlnode_uint(y, v, label, 0, 100, &mp->read_pct) < 0)
		return -1;
	if (mp->read_pct == SETTING_READ_PCT_UNSET)
		mp->read_pct = mp->rw == RW_RW ? 50 : 75;
	return 0;
}

int mixparse_read(struct yamlnode_doc *y, const yaml_node_t *n, struct io_settings *io)
{
	struct mix m = {.sizes = io->mix.sizes, .op = io->mix.op, .fileset = io->mix.fileset};
	uint32_t sum = 0;
	size_t count;

	if (n->type != YAML_SEQUENCE_NODE ||
	    (count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start)) == 0) {
		yamlnode_expected(
		    y, n, "mix",
		    "a list of parts such as [{name: reads, share: 70, rw: randread}, "
		    "...]");
		return -1;
	}
	if (count > MIX_PARTS_MAX) {
		yamlnode_error(y, n, "mix: %zu parts; a mix takes at most %d", count,
		               MIX_PARTS_MAX);
		return -1;
	}
	for (size_t i = 0; i < count; i++) {
		yaml_node_t *e = yamlnode_get(y, n->data.sequence.items.start[i]);

		if (mixparse_part(y, e, (uint32_t)i, io, &m.parts[i]) < 0)
			return -1;
		if (mix_part_find(&m, m.parts[i].name) >= 0) {
			yamlnode_error(y, yamlnode_lookup(y, e, "name"),
			               "name: mix part '%s' is already defined (names must be "
			               "unique; rename one)",
			               m.parts[i].name);
			return -1;
		}
		m.nparts = (uint32_t)i + 1;
		sum += m.parts[i].share;
	}
	if (sum != 100) {
		yamlnode_error(y, n, "mix: the parts' shares add up to %u, not 100", sum);
		return -1;
	}
	io->mix = m;
	return 0;
}

void mixparse_finish(struct io_settings *io)
{
	bool reads = false, writes = false, random = false;
	uint32_t read_share = 0;

	if (io->mix.nparts == 0) {
		if (io->mix.sizes.n > 0)
			io->block_size = mix_sizes_max(&io->mix.sizes);
		return;
	}
	io->mix.sizes.n = 0; /* a mix's sizes are its parts' */
	for (uint32_t i = 0; i < io->mix.nparts; i++) {
		const struct mix_part *p = &io->mix.parts[i];
		uint32_t pct = rw_is_mix(p->rw) ? p->read_pct : rw_writes(p->rw) ? 0 : 100;

		reads |= pct > 0;
		writes |= pct < 100;
		random |= rw_is_random(p->rw);
		read_share += p->share * pct;
	}
	io->block_size = mix_block_max(&io->mix);
	io->read_pct = (read_share + 50) / 100;
	if (reads && writes)
		io->rw = random ? RW_RANDRW : RW_RW;
	else if (writes)
		io->rw = random ? RW_RANDWRITE : RW_WRITE;
	else
		io->rw = random ? RW_RANDREAD : RW_READ;
}
