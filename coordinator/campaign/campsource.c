/* SPDX-License-Identifier: MIT */
/* The campaign language over YAML: include, ${NAME} from the environment, --set. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campsource.h"
#include "xalloc.h"
#include "yamlload.h"

/* include: chains deeper than this are a mistake, not a design. */
#define CAMPSOURCE_MAX_INCLUDE 16

struct campsource_ctx {
	struct yamltree *t;
	const struct campsource *src;
	bool used; /* the file needs the language: its text is not what runs */
	/* the include chain, as named (for messages) and as resolved (for cycles) */
	const char *chain[CAMPSOURCE_MAX_INCLUDE + 1];
	char *real[CAMPSOURCE_MAX_INCLUDE + 1];
	size_t depth;
	struct error *err;
};

static void campsource_fail_at(struct campsource_ctx *x, const struct yamltree_node *n,
                               const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void campsource_fail_at(struct campsource_ctx *x, const struct yamltree_node *n,
                               const char *fmt, ...)
{
	char what[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (n->at.set != NULL)
		error_set(x->err, "--set %s: %s", n->at.set, what);
	else
		error_set(x->err, "%s:%zu:%zu: %s", n->at.file, n->at.line, n->at.col, what);
}

static const char *campsource_env(struct campsource_ctx *x, const char *name)
{
	if (x->src != NULL && x->src->getenv != NULL)
		return x->src->getenv(x->src->getenv_arg, name);
	return getenv(name);
}

static bool campsource_name_char(char c, bool first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* Append s[0..len) to a growing buffer. */
static void campsource_cat(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = (*len + n + 1) * 2;
		*buf = xreallocarray(*buf, *cap, 1);
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/*
 * ${NAME}, ${NAME:-default} and $$ in one scalar value. An unset NAME without a
 * default is refused: a campaign that silently ran on an empty path would be worse.
 */
static int campsource_vars(struct campsource_ctx *x, struct yamltree_node *n)
{
	char *out = NULL, *vars = NULL;
	size_t len = 0, cap = 0, vlen = 0, vcap = 0;
	const char *s = n->text;

	if (strchr(s, '$') == NULL)
		return 0;
	x->used = true;
	campsource_cat(&out, &len, &cap, "", 0);
	while (*s != '\0') {
		const char *name, *end, *def = NULL, *val;
		size_t nlen, dlen = 0;
		char var[128];

		if (s[0] != '$') {
			campsource_cat(&out, &len, &cap, s, 1);
			s++;
			continue;
		}
		if (s[1] == '$') {
			campsource_cat(&out, &len, &cap, "$", 1);
			s += 2;
			continue;
		}
		if (campsource_name_char(s[1], true)) {
			nlen = 1;
			while (campsource_name_char(s[1 + nlen], false))
				nlen++;
			campsource_fail_at(x, n,
			                   "'$%.*s' is not expanded: write ${%.*s} (or $$ for a "
			                   "literal '$')",
			                   (int)nlen, s + 1, (int)nlen, s + 1);
			goto fail;
		}
		if (s[1] != '{') {
			campsource_cat(&out, &len, &cap, s, 1);
			s++;
			continue;
		}
		name = s + 2;
		for (end = name; campsource_name_char(*end, end == name); end++)
			;
		nlen = (size_t)(end - name);
		if (strncmp(end, ":-", 2) == 0) {
			def = end + 2;
			end = strchr(def, '}');
			if (end != NULL)
				dlen = (size_t)(end - def);
		}
		if (nlen == 0 || nlen >= sizeof(var) || end == NULL || *end != '}') {
			campsource_fail_at(x, n,
			                   "'%.40s': expected ${NAME} or ${NAME:-default}, NAME of "
			                   "letters, digits and '_' (or $$ for a literal '$')",
			                   s);
			goto fail;
		}
		memcpy(var, name, nlen);
		var[nlen] = '\0';
		val = campsource_env(x, var);
		if (val == NULL || (val[0] == '\0' && def != NULL)) {
			if (def == NULL) {
				campsource_fail_at(x, n,
				                   "${%s} is not set (export %s=..., or give a "
				                   "default: ${%s:-VALUE})",
				                   var, var, var);
				goto fail;
			}
			campsource_cat(&out, &len, &cap, def, dlen);
		} else {
			campsource_cat(&out, &len, &cap, val, strlen(val));
		}
		if (vlen > 0)
			campsource_cat(&vars, &vlen, &vcap, ", ", 2);
		campsource_cat(&vars, &vlen, &vcap, s, (size_t)(end + 1 - s));
		s = end + 1;
	}
	n->text = yamltree_strndup(x->t, out, len);
	n->len = len;
	if (vars != NULL)
		n->at.vars = yamltree_strndup(x->t, vars, vlen);
	free(out);
	free(vars);
	return 0;
fail:
	free(out);
	free(vars);
	return -1;
}

/* Every value of the tree; keys are names and stay as written. */
static int campsource_expand_tree(struct campsource_ctx *x, struct yamltree_node *n)
{
	if (n->kind == YAMLTREE_SCALAR)
		return campsource_vars(x, n);
	for (size_t i = 0; i < n->n; i++)
		if (campsource_expand_tree(x, n->items[i]) < 0)
			return -1;
	return 0;
}

/*
 * over on top of base: mappings key by key (over's keys first, in its order, then
 * the keys only base has), anything else over as it is (a list is replaced whole).
 */
static struct yamltree_node *campsource_merge(struct yamltree *t, struct yamltree_node *base,
                                              struct yamltree_node *over)
{
	struct yamltree_node *m;

	if (base->kind != YAMLTREE_MAP || over->kind != YAMLTREE_MAP)
		return over;
	m = yamltree_new(t, YAMLTREE_MAP, &over->at);
	for (size_t i = 0; i < over->n; i++) {
		long b = yamltree_find(base, over->keys[i]->text);

		yamltree_push(t, m, over->keys[i],
		              b >= 0 ? campsource_merge(t, base->items[b], over->items[i])
		                     : over->items[i]);
	}
	for (size_t i = 0; i < base->n; i++)
		if (yamltree_find(over, base->keys[i]->text) < 0)
			yamltree_push(t, m, base->keys[i], base->items[i]);
	return m;
}

static struct yamltree_node *campsource_file(struct campsource_ctx *x, const char *path,
                                             const struct yamltree_node *from, bool *fallback);

/* include: FILE (or a list of them): FILE relative to the including file's directory. */
static struct yamltree_node *campsource_include(struct campsource_ctx *x, const char *including,
                                                const struct yamltree_node *name)
{
	const char *slash = strrchr(including, '/');
	struct yamltree_node *root;
	char *path;

	if (name->kind != YAMLTREE_SCALAR || name->len == 0) {
		campsource_fail_at(x, name,
		                   "include: expected a file name or a list of them such as "
		                   "[base.yaml], relative to this file");
		return NULL;
	}
	if (name->text[0] == '/' || slash == NULL)
		path = yamltree_strndup(x->t, name->text, name->len);
	else {
		char *p = xasprintf("%.*s/%s", (int)(slash - including), including, name->text);

		path = yamltree_strndup(x->t, p, strlen(p));
		free(p);
	}
	root = campsource_file(x, path, name, NULL);
	if (root != NULL && root->kind != YAMLTREE_MAP) {
		campsource_fail_at(x, root,
		                   "an included file holds a mapping of campaign keys (such as "
		                   "target: and workers:)");
		return NULL;
	}
	return root;
}

/* The includes of root, merged in order under it; the include key itself is gone. */
static struct yamltree_node *campsource_includes(struct campsource_ctx *x, const char *path,
                                                 struct yamltree_node *root)
{
	long at = root->kind == YAMLTREE_MAP ? yamltree_find(root, "include") : -1;
	struct yamltree_node *inc, *base = NULL, *rest;

	if (at < 0)
		return root;
	x->used = true;
	inc = root->items[at];
	for (size_t i = 0; i < (inc->kind == YAMLTREE_SEQ ? inc->n : 1); i++) {
		struct yamltree_node *one =
		    campsource_include(x, path, inc->kind == YAMLTREE_SEQ ? inc->items[i] : inc);

		if (one == NULL)
			return NULL;
		base = base != NULL ? campsource_merge(x->t, base, one) : one;
	}
	rest = yamltree_new(x->t, YAMLTREE_MAP, &root->at);
	for (size_t i = 0; i < root->n; i++)
		if ((long)i != at)
			yamltree_push(x->t, rest, root->keys[i], root->items[i]);
	return base != NULL ? campsource_merge(x->t, base, rest) : rest;
}

/*
 * One file as a tree, its values expanded and its includes merged in. from is the
 * include: value naming it (NULL for the campaign file). For the campaign file, a
 * tree that cannot be built sets *fallback: the campaign parser explains it.
 */
static struct yamltree_node *campsource_file(struct campsource_ctx *x, const char *path,
                                             const struct yamltree_node *from, bool *fallback)
{
	struct yamltree_node *root = NULL;
	yaml_document_t doc;
	yaml_node_t *yroot;
	char *text, *real;
	size_t len;

	if (from != NULL) {
		if (x->depth >= CAMPSOURCE_MAX_INCLUDE) {
			campsource_fail_at(x, from, "include: nested deeper than %d files",
			                   CAMPSOURCE_MAX_INCLUDE);
			return NULL;
		}
		real = realpath(path, NULL);
		if (real == NULL) {
			campsource_fail_at(x, from, "include: %s: cannot read: %s", path,
			                   strerror(errno));
			return NULL;
		}
		for (size_t i = 0; i < x->depth; i++) {
			char chain[768];
			size_t off = 0;

			if (strcmp(x->real[i], real) != 0)
				continue;
			for (size_t j = 0; j < x->depth && off < sizeof(chain); j++)
				off += (size_t)snprintf(chain + off, sizeof(chain) - off, "%s -> ",
				                        x->chain[j]);
			if (off < sizeof(chain))
				snprintf(chain + off, sizeof(chain) - off, "%s", path);
			free(real);
			campsource_fail_at(x, from, "include cycle: %s (a file includes itself)",
			                   chain);
			return NULL;
		}
	} else {
		real = realpath(path, NULL);
		if (real == NULL)
			real = xstrdup(path);
	}
	x->chain[x->depth] = path;
	x->real[x->depth++] = real;
	text = yamlload_read_file(path, &len, x->err);
	if (text == NULL) {
		if (from != NULL)
			error_prefix(x->err, "%s:%zu:%zu: include: ", from->at.file, from->at.line,
			             from->at.col);
		goto out;
	}
	if (yamlload_document(text, len, path, &doc, x->err) < 0) {
		if (fallback != NULL)
			*fallback = true;
		free(text);
		goto out;
	}
	free(text);
	yroot = yaml_document_get_root_node(&doc);
	if (yroot == NULL) {
		if (fallback != NULL)
			*fallback = true; /* "the campaign is empty" */
		else
			root =
			    yamltree_new(x->t, YAMLTREE_MAP,
			                 &(struct yamltree_origin){
			                     .file = path, .line = 1, .col = 1, .included = true});
		yaml_document_delete(&doc);
		goto out;
	}
	root = yamltree_from_doc(x->t, &doc, yroot, path, from != NULL, x->err);
	yaml_document_delete(&doc);
	if (root == NULL) {
		if (fallback != NULL)
			*fallback = true;
		goto out;
	}
	if (campsource_expand_tree(x, root) < 0)
		root = NULL;
	else
		root = campsource_includes(x, path, root);
out:
	free(x->real[--x->depth]);
	return root;
}

static void campsource_set_origin(struct yamltree_node *n, const char *set)
{
	n->at = (struct yamltree_origin){.set = set};
	for (size_t i = 0; i < n->n; i++) {
		if (n->keys != NULL && n->keys[i] != NULL)
			campsource_set_origin(n->keys[i], set);
		campsource_set_origin(n->items[i], set);
	}
}

/* The value of --set KEY=VALUE, read as YAML (a scalar, [list] or {mapping}). */
static struct yamltree_node *campsource_set_value(struct campsource_ctx *x, const char *arg,
                                                  const char *value)
{
	struct yamltree_node *n;
	yaml_document_t doc;
	yaml_node_t *root;
	struct error yerr;

	/* "VALUE:1:2: did not find expected ',' or ']'": where in the value */
	if (yamlload_document(value, strlen(value), "VALUE", &doc, &yerr) < 0) {
		error_set(x->err, "--set %s: %s", arg, yerr.msg);
		return NULL;
	}
	root = yaml_document_get_root_node(&doc);
	if (root == NULL) {
		n = yamltree_new(x->t, YAMLTREE_SCALAR, NULL);
		n->text = yamltree_strndup(x->t, "", 0);
	} else {
		n = yamltree_from_doc(x->t, &doc, root, arg, false, x->err);
		if (n == NULL)
			error_prefix(x->err, "--set ");
	}
	yaml_document_delete(&doc);
	if (n != NULL)
		campsource_set_origin(n, arg);
	return n;
}

/* The item of seq named at the start of rest (longest name first: names may hold '.'). */
static long campsource_named(const struct yamltree_node *seq, const char *rest, size_t *nlen,
                             bool *any)
{
	long best = -1;

	*any = false;
	*nlen = 0;
	for (size_t i = 0; i < seq->n; i++) {
		const struct yamltree_node *it = seq->items[i];
		long k = it->kind == YAMLTREE_MAP ? yamltree_find(it, "name") : -1;
		const struct yamltree_node *name = k >= 0 ? it->items[k] : NULL;

		if (name == NULL || name->kind != YAMLTREE_SCALAR)
			continue;
		*any = true;
		if (strncmp(rest, name->text, name->len) == 0 &&
		    (rest[name->len] == '\0' || rest[name->len] == '.') && name->len > *nlen) {
			best = (long)i;
			*nlen = name->len;
		}
	}
	return best;
}

/* "a, b, c": the names of seq's items, for "no item named". */
static void campsource_names(const struct yamltree_node *seq, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < seq->n && off < len; i++) {
		const struct yamltree_node *it = seq->items[i];
		long k = it->kind == YAMLTREE_MAP ? yamltree_find(it, "name") : -1;

		if (k >= 0 && it->items[k]->kind == YAMLTREE_SCALAR)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
			                        it->items[k]->text);
	}
}

/*
 * --set KEY=VALUE on root: KEY a dotted path of mapping keys, a list's item by its
 * name. A missing key is added (the campaign parser then refuses one it does not
 * know, naming this argument).
 */
static int campsource_set(struct campsource_ctx *x, struct yamltree_node *root, const char *arg)
{
	const char *eq = strchr(arg, '='), *rest;
	struct yamltree_node *node = root, *value;
	char *path;

	if (eq == NULL || eq == arg) {
		error_set(x->err,
		          "--set %s: expected KEY=VALUE such as target.path=/mnt/test or "
		          "workloads.NAME.queue_depth=8",
		          arg);
		return -1;
	}
	path = yamltree_strndup(x->t, arg, (size_t)(eq - arg));
	if ((value = campsource_set_value(x, arg, eq + 1)) == NULL)
		return -1;
	x->used = true;
	rest = path;
	for (;;) {
		const char *dot;
		size_t klen;
		long i;

		if (node->kind == YAMLTREE_SEQ) {
			bool any;
			char names[512];

			i = campsource_named(node, rest, &klen, &any);
			if (i < 0) {
				campsource_names(node, names, sizeof(names));
				if (!any)
					error_set(
					    x->err,
					    "--set %s: '%.*s' is a list whose items have no name: "
					    "set it whole (--set '%.*s=[...]')",
					    arg, (int)(rest - path - 1), path,
					    (int)(rest - path - 1), path);
				else
					error_set(x->err,
					          "--set %s: no item named '%.*s' in '%.*s' "
					          "(names: %s)",
					          arg, (int)strcspn(rest, "."), rest,
					          (int)(rest - path - 1), path, names);
				return -1;
			}
			if (rest[klen] == '\0') {
				node->items[i] = value;
				return 0;
			}
			node = node->items[i];
			rest += klen + 1;
			continue;
		}
		if (node->kind != YAMLTREE_MAP) {
			error_set(x->err, "--set %s: '%.*s' holds a value ('%.40s'), not keys", arg,
			          (int)(rest - path - 1), path, node->text);
			return -1;
		}
		/* a key holding '.' (a label such as topology.zone) wins over a shorter one */
		i = -1;
		klen = 0;
		for (size_t k = 0; k < node->n; k++) {
			size_t l = node->keys[k]->len;

			if (l > klen && strncmp(rest, node->keys[k]->text, l) == 0 &&
			    (rest[l] == '\0' || rest[l] == '.')) {
				i = (long)k;
				klen = l;
			}
		}
		if (i < 0) {
			dot = strchr(rest, '.');
			klen = dot != NULL ? (size_t)(dot - rest) : strlen(rest);
		}
		if (klen == 0) {
			error_set(x->err, "--set %s: an empty name in '%s'", arg, path);
			return -1;
		}
		if (rest[klen] == '\0') {
			if (i >= 0)
				node->items[i] = value;
			else {
				struct yamltree_node *key =
				    yamltree_new(x->t, YAMLTREE_SCALAR, &value->at);

				key->text = yamltree_strndup(x->t, rest, klen);
				key->len = klen;
				yamltree_push(x->t, node, key, value);
			}
			return 0;
		}
		if (i < 0) {
			struct yamltree_node *key = yamltree_new(x->t, YAMLTREE_SCALAR, &value->at);
			struct yamltree_node *map = yamltree_new(x->t, YAMLTREE_MAP, &value->at);

			key->text = yamltree_strndup(x->t, rest, klen);
			key->len = klen;
			yamltree_push(x->t, node, key, map);
			i = (long)node->n - 1;
		}
		node = node->items[i];
		rest += klen + 1;
	}
}

int campsource_expand(const char *path, const struct campsource *src, struct campsource_result *r,
                      struct error *err)
{
	struct campsource_ctx x = {.t = &r->tree, .src = src, .err = &r->build_err};
	struct yamltree_node *root;
	bool fallback = false;
	char *header;

	memset(r, 0, sizeof(*r));
	r->path = path;
	root = campsource_file(&x, path, NULL, &fallback);
	if (root == NULL && !fallback)
		goto fail;
	if (root != NULL) {
		if (src != NULL && src->nsets > 0 && root->kind != YAMLTREE_MAP)
			fallback = true;
		for (size_t i = 0; !fallback && src != NULL && i < src->nsets; i++)
			if (campsource_set(&x, root, src->sets[i]) < 0)
				goto fail;
	}
	if (fallback || !x.used || root->kind != YAMLTREE_MAP) {
		/* the file as written: nothing to expand, or the parser explains it */
		r->build_failed = fallback;
		if (fallback && src != NULL && src->nsets > 0 && root != NULL)
			error_set(&r->build_err,
			          "%s: --set needs a campaign mapping to set keys in", path);
		r->text = yamlload_read_file(path, &r->len, err);
		if (r->text == NULL) {
			campsource_result_free(r);
			return -1;
		}
		return 0;
	}
	header = xasprintf("# The effective campaign: %s as iocurve ran it, its include:, ${...} "
	                   "and --set\n# applied. A value not from %s says where it came "
	                   "from.\n",
	                   path, path);
	yamltree_emit(root, header, &r->out);
	free(header);
	r->generated = true;
	r->text = r->out.buf;
	r->len = r->out.len;
	return 0;
fail:
	*err = r->build_err;
	campsource_result_free(r);
	return -1;
}

void campsource_where(void *arg, const yaml_mark_t *mark, char *pre, size_t prelen, char *post,
                      size_t postlen)
{
	const struct campsource_result *r = arg;
	const struct yamltree_node *n = yamltree_at(&r->out, mark->line, mark->column);

	if (n == NULL)
		snprintf(pre, prelen, "%s:%zu:%zu: ", r->path, mark->line + 1, mark->column + 1);
	else if (n->at.set != NULL)
		snprintf(pre, prelen, "--set %s: ", n->at.set);
	else
		snprintf(pre, prelen, "%s:%zu:%zu: ", n->at.file, n->at.line, n->at.col);
	if (n != NULL && n->at.vars != NULL)
		snprintf(post, postlen, " (from %s)", n->at.vars);
}

void campsource_result_free(struct campsource_result *r)
{
	if (!r->generated)
		free(r->text);
	yamltree_text_free(&r->out);
	yamltree_free(&r->tree);
	memset(r, 0, sizeof(*r));
}
