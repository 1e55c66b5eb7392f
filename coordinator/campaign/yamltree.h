/* SPDX-License-Identifier: MIT */
/*
 * A YAML tree whose every node knows where it was written (a file's line and
 * column, a --set argument, an expanded ${NAME}): campaign files merged, expanded
 * and overridden (campsource.c), then written out as one document that says where
 * each value came from, and whose marks lead back there.
 */
#ifndef IOCURVE_YAMLTREE_H
#define IOCURVE_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "error.h"

enum yamltree_kind { YAMLTREE_SCALAR, YAMLTREE_SEQ, YAMLTREE_MAP };

struct yamltree_origin {
	const char *file; /* the file it was written in; NULL for a --set */
	size_t line, col; /* 1-based, in file */
	const char *set;  /* the --set KEY=VALUE it came from */
	const char *vars; /* "${DISK}" when its text was expanded from the environment */
	bool included;    /* file is an included one, not the campaign's own */
};

struct yamltree_node {
	enum yamltree_kind kind;
	struct yamltree_origin at;
	char *text; /* scalar, NUL-terminated */
	size_t len;
	struct yamltree_node **keys;  /* map: scalar keys, beside items */
	struct yamltree_node **items; /* map: values; seq: items */
	size_t n, cap;
};

/* Every node and string of one expansion, freed together. */
struct yamltree {
	void **blocks;
	size_t n, cap;
};

void *yamltree_alloc(struct yamltree *t, size_t size);
char *yamltree_strndup(struct yamltree *t, const char *s, size_t len);
struct yamltree_node *yamltree_new(struct yamltree *t, enum yamltree_kind kind,
                                   const struct yamltree_origin *at);
/* Append key: value to a map, or value to a seq (key NULL). */
void yamltree_push(struct yamltree *t, struct yamltree_node *parent, struct yamltree_node *key,
                   struct yamltree_node *value);
/* The index of key in map, or -1. */
long yamltree_find(const struct yamltree_node *map, const char *key);
void yamltree_free(struct yamltree *t);

/*
 * node of doc as a tree, from file (kept, not copied; included marks it as not the
 * campaign's own). Aliases are copied (at most 100,000 nodes in all). Keys must be
 * plain scalars, each once in its mapping; else -1 with err "FILE:L:C: ...".
 */
struct yamltree_node *yamltree_from_doc(struct yamltree *t, yaml_document_t *doc, yaml_node_t *node,
                                        const char *file, bool included, struct error *err);

/* A written document and where each of its nodes starts in it. */
struct yamltree_text {
	char *buf;
	size_t len, cap;
	size_t line, col; /* 0-based, of the end of buf */
	struct yamltree_mark {
		size_t line, col; /* 0-based, as libyaml's marks */
		const struct yamltree_node *node;
	} * marks;
	size_t nmarks, capmarks;
};

/*
 * root (a mapping) as block YAML after header (comment lines), each value not from
 * the campaign's own file commented with where it came from ("# from --set K=V",
 * "# from include base.yaml:3", "# from ${DISK}").
 */
void yamltree_emit(const struct yamltree_node *root, const char *header, struct yamltree_text *out);
/* The node written at (or, failing that, nearest before on the line of) a mark. */
const struct yamltree_node *yamltree_at(const struct yamltree_text *t, size_t line, size_t col);
void yamltree_text_free(struct yamltree_text *t);

#endif
