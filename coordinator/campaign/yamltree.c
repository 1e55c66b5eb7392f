/* SPDX-License-Identifier: MIT */
/* A YAML tree whose nodes know where they were written, read from libyaml and written back. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign_def.h"
#include "xalloc.h"
#include "yamltree.h"

/* Aliases are copied: a few anchors used many times must not make millions of nodes. */
#define YAMLTREE_MAX_NODES 100000

void *yamltree_alloc(struct yamltree *t, size_t size)
{
	void *p = xcalloc(1, size ? size : 1);

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->blocks = xreallocarray(t->blocks, t->cap, sizeof(*t->blocks));
	}
	t->blocks[t->n++] = p;
	return p;
}

char *yamltree_strndup(struct yamltree *t, const char *s, size_t len)
{
	char *p = yamltree_alloc(t, len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

struct yamltree_node *yamltree_new(struct yamltree *t, enum yamltree_kind kind,
                                   const struct yamltree_origin *at)
{
	struct yamltree_node *n = yamltree_alloc(t, sizeof(*n));

	n->kind = kind;
	if (at != NULL)
		n->at = *at;
	return n;
}

void yamltree_push(struct yamltree *t, struct yamltree_node *parent, struct yamltree_node *key,
                   struct yamltree_node *value)
{
	if (parent->n == parent->cap) {
		size_t cap = parent->cap ? 2 * parent->cap : 8;
		struct yamltree_node **items = yamltree_alloc(t, cap * sizeof(*items));
		struct yamltree_node **keys = yamltree_alloc(t, cap * sizeof(*keys));

		if (parent->n) {
			memcpy(items, parent->items, parent->n * sizeof(*items));
			if (parent->keys != NULL)
				memcpy(keys, parent->keys, parent->n * sizeof(*keys));
		}
		parent->items = items;
		parent->keys = keys;
		parent->cap = cap;
	}
	parent->keys[parent->n] = key;
	parent->items[parent->n++] = value;
}

long yamltree_find(const struct yamltree_node *map, const char *key)
{
	for (size_t i = 0; i < map->n; i++)
		if (strcmp(map->keys[i]->text, key) == 0)
			return (long)i;
	return -1;
}

void yamltree_free(struct yamltree *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->blocks[i]);
	free(t->blocks);
	memset(t, 0, sizeof(*t));
}

struct yamltree_build {
	struct yamltree *t;
	yaml_document_t *doc;
	const char *file;
	bool included;
	size_t nodes;
	struct error *err;
};

static void yamltree_fail(struct yamltree_build *b, const yaml_node_t *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void yamltree_fail(struct yamltree_build *b, const yaml_node_t *at, const char *fmt, ...)
{
	char what[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	error_set(b->err, "%s:%zu:%zu: %s", b->file, at->start_mark.line + 1,
	          at->start_mark.column + 1, what);
}

static struct yamltree_node *yamltree_build(struct yamltree_build *b, yaml_node_t *y, int depth)
{
	struct yamltree_origin at = {.file = b->file,
	                             .line = y->start_mark.line + 1,
	                             .col = y->start_mark.column + 1,
	                             .included = b->included};
	struct yamltree_node *n;

	if (depth > CAMPAIGN_MAX_DEPTH || ++b->nodes > YAMLTREE_MAX_NODES) {
		yamltree_fail(b, y, "nested deeper than %d levels or over %d nodes (aliases?)",
		              CAMPAIGN_MAX_DEPTH, YAMLTREE_MAX_NODES);
		return NULL;
	}
	switch (y->type) {
	case YAML_SEQUENCE_NODE:
		n = yamltree_new(b->t, YAMLTREE_SEQ, &at);
		for (yaml_node_item_t *i = y->data.sequence.items.start;
		     i < y->data.sequence.items.top; i++) {
			struct yamltree_node *c =
			    yamltree_build(b, yaml_document_get_node(b->doc, *i), depth + 1);

			if (c == NULL)
				return NULL;
			yamltree_push(b->t, n, NULL, c);
		}
		return n;
	case YAML_MAPPING_NODE:
		n = yamltree_new(b->t, YAMLTREE_MAP, &at);
		for (yaml_node_pair_t *p = y->data.mapping.pairs.start;
		     p < y->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(b->doc, p->key);
			struct yamltree_node *kn, *vn;
			long prev;

			if (k->type != YAML_SCALAR_NODE) {
				yamltree_fail(b, k, "keys must be plain names");
				return NULL;
			}
			kn = yamltree_build(b, k, depth + 1);
			if (kn == NULL)
				return NULL;
			if ((prev = yamltree_find(n, kn->text)) >= 0) {
				yamltree_fail(b, k,
				              "duplicate key '%s' (first at line %zu; keep one)",
				              kn->text, n->keys[prev]->at.line);
				return NULL;
			}
			vn = yamltree_build(b, yaml_document_get_node(b->doc, p->value), depth + 1);
			if (vn == NULL)
				return NULL;
			yamltree_push(b->t, n, kn, vn);
		}
		return n;
	case YAML_SCALAR_NODE:
		n = yamltree_new(b->t, YAMLTREE_SCALAR, &at);
		if (strlen((const char *)y->data.scalar.value) != y->data.scalar.length) {
			yamltree_fail(b, y, "contains a NUL character (remove the \\0)");
			return NULL;
		}
		n->text = yamltree_strndup(b->t, (const char *)y->data.scalar.value,
		                           y->data.scalar.length);
		n->len = y->data.scalar.length;
		return n;
	default:
		n = yamltree_new(b->t, YAMLTREE_SCALAR, &at);
		n->text = yamltree_strndup(b->t, "", 0);
		return n;
	}
}

struct yamltree_node *yamltree_from_doc(struct yamltree *t, yaml_document_t *doc, yaml_node_t *node,
                                        const char *file, bool included, struct error *err)
{
	struct yamltree_build b = {
	    .t = t, .doc = doc, .file = file, .included = included, .err = err};

	return yamltree_build(&b, node, 0);
}

/* ---- writing ---- */

static void yamltree_put(struct yamltree_text *o, const char *s, size_t len)
{
	if (o->len + len + 1 > o->cap) {
		o->cap = (o->len + len + 1) * 2;
		o->buf = xreallocarray(o->buf, o->cap, 1);
	}
	memcpy(o->buf + o->len, s, len);
	o->len += len;
	o->buf[o->len] = '\0';
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\n') {
			o->line++;
			o->col = 0;
		} else if (((unsigned char)s[i] & 0xc0) != 0x80) {
			o->col++; /* libyaml counts characters, not bytes */
		}
	}
}

static void yamltree_puts(struct yamltree_text *o, const char *s)
{
	yamltree_put(o, s, strlen(s));
}

static void yamltree_pad(struct yamltree_text *o, size_t col)
{
	while (o->col < col)
		yamltree_put(o, " ", 1);
}

static void yamltree_mark(struct yamltree_text *o, const struct yamltree_node *n)
{
	if (o->nmarks == o->capmarks) {
		o->capmarks = o->capmarks ? 2 * o->capmarks : 64;
		o->marks = xreallocarray(o->marks, o->capmarks, sizeof(*o->marks));
	}
	o->marks[o->nmarks++] = (struct yamltree_mark){o->line, o->col, n};
}

/* Plain when it cannot be read as anything but this text, else double-quoted. */
static bool yamltree_plain(const char *s, size_t len)
{
	bool alnum0 = (s[0] >= '0' && s[0] <= '9') || (s[0] >= 'a' && s[0] <= 'z') ||
	              (s[0] >= 'A' && s[0] <= 'Z');

	if (len == 0 || (!alnum0 && strchr("-.+/_", s[0]) == NULL))
		return false;
	if (s[0] == '-' && (len == 1 || s[1] == ' ' || s[1] == '-'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c != '\0' && strchr("-._/+%=@", c) != NULL) ||
		      (c == ':' && i + 1 < len && s[i + 1] != ' ')))
			return false;
	}
	return true;
}

static void yamltree_scalar(struct yamltree_text *o, const struct yamltree_node *n)
{
	char esc[8];

	yamltree_mark(o, n);
	if (yamltree_plain(n->text, n->len)) {
		yamltree_put(o, n->text, n->len);
		return;
	}
	yamltree_put(o, "\"", 1);
	for (size_t i = 0; i < n->len; i++) {
		unsigned char c = (unsigned char)n->text[i];

		if (c == '"' || c == '\\') {
			esc[0] = '\\';
			esc[1] = (char)c;
			yamltree_put(o, esc, 2);
		} else if (c == '\n') {
			yamltree_put(o, "\\n", 2);
		} else if (c == '\t') {
			yamltree_put(o, "\\t", 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			yamltree_puts(o, esc);
		} else {
			yamltree_put(o, (const char *)&c, 1);
		}
	}
	yamltree_put(o, "\"", 1);
}

/* "  # from ..." for a node not from the campaign's own file, if its parent's differs. */
static void yamltree_comment(struct yamltree_text *o, const struct yamltree_node *n,
                             const struct yamltree_node *parent)
{
	char buf[1024];

	/* under a collection of the same --set or include, its comment says it */
	if (parent != NULL && n->at.set == parent->at.set && n->at.file == parent->at.file &&
	    n->at.vars == NULL && (n->kind != YAMLTREE_SCALAR || n->at.set != NULL))
		return;
	if (n->at.set != NULL)
		snprintf(buf, sizeof(buf), "  # from --set %s", n->at.set);
	else if (n->at.vars != NULL && n->at.included)
		snprintf(buf, sizeof(buf), "  # from %s, include %s:%zu", n->at.vars, n->at.file,
		         n->at.line);
	else if (n->at.vars != NULL)
		snprintf(buf, sizeof(buf), "  # from %s", n->at.vars);
	else if (n->at.included)
		snprintf(buf, sizeof(buf), "  # from include %s:%zu", n->at.file, n->at.line);
	else
		return;
	/* a comment is one line whatever a value held */
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	yamltree_puts(o, buf);
}

static void yamltree_block(struct yamltree_text *o, const struct yamltree_node *n,
                           const struct yamltree_node *parent, bool after_key, size_t ind);

/* The pairs of map from the current position, later ones at column col. */
static void yamltree_pairs(struct yamltree_text *o, const struct yamltree_node *map, size_t col)
{
	for (size_t i = 0; i < map->n; i++) {
		if (i > 0)
			yamltree_pad(o, col);
		yamltree_scalar(o, map->keys[i]);
		yamltree_put(o, ":", 1);
		yamltree_block(o, map->items[i], map, true, col + 2);
	}
}

static void yamltree_items(struct yamltree_text *o, const struct yamltree_node *seq, size_t col)
{
	for (size_t i = 0; i < seq->n; i++) {
		if (i > 0)
			yamltree_pad(o, col);
		yamltree_put(o, "- ", 2);
		yamltree_block(o, seq->items[i], seq, false, col + 2);
	}
}

/*
 * n after "key:" (after_key) or after "- ": a scalar or an empty collection on the
 * line, a collection's children below at column ind (after a key) or from here on.
 */
static void yamltree_block(struct yamltree_text *o, const struct yamltree_node *n,
                           const struct yamltree_node *parent, bool after_key, size_t ind)
{
	if (n->kind == YAMLTREE_SCALAR || n->n == 0) {
		if (after_key)
			yamltree_put(o, " ", 1);
		if (n->kind == YAMLTREE_SCALAR)
			yamltree_scalar(o, n);
		else {
			yamltree_mark(o, n);
			yamltree_puts(o, n->kind == YAMLTREE_SEQ ? "[]" : "{}");
		}
		yamltree_comment(o, n, parent);
		yamltree_put(o, "\n", 1);
		return;
	}
	if (after_key) {
		yamltree_comment(o, n, parent);
		yamltree_put(o, "\n", 1);
		yamltree_pad(o, ind);
	} else {
		ind = o->col;
	}
	yamltree_mark(o, n);
	if (n->kind == YAMLTREE_MAP)
		yamltree_pairs(o, n, ind);
	else
		yamltree_items(o, n, ind);
}

void yamltree_emit(const struct yamltree_node *root, const char *header, struct yamltree_text *out)
{
	memset(out, 0, sizeof(*out));
	yamltree_puts(out, header);
	yamltree_mark(out, root);
	yamltree_pairs(out, root, 0);
}

const struct yamltree_node *yamltree_at(const struct yamltree_text *t, size_t line, size_t col)
{
	const struct yamltree_node *best = NULL;

	for (size_t i = 0; i < t->nmarks; i++) {
		const struct yamltree_mark *m = &t->marks[i];

		if (m->line > line || (m->line == line && m->col > col))
			break;
		/* a mapping and its first key share a mark: the key, written last */
		best = m->node;
	}
	return best;
}

void yamltree_text_free(struct yamltree_text *t)
{
	free(t->buf);
	free(t->marks);
	memset(t, 0, sizeof(*t));
}
