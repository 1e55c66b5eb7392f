/* SPDX-License-Identifier: MIT */
/* Reading one YAML document from a file or text, with errors at file:line:column. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "campaign_def.h"
#include "xalloc.h"
#include "yamlload.h"

#define YAMLLOAD_MAX_FILE (16u << 20)

/* libyaml's own words, placed at its mark, plus the construct it was inside. */
static void yamlload_error(const yaml_parser_t *p, const char *file, struct error *err)
{
	const char *problem = p->problem ? p->problem : "malformed YAML";

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		error_set(err, "%s: out of memory while reading YAML", file);
		break;
	case YAML_READER_ERROR:
		error_set(err, "%s: byte %zu: %s (a campaign must be UTF-8 text)", file,
		          p->problem_offset, problem);
		break;
	default:
		if (p->context != NULL)
			error_set(err, "%s:%zu:%zu: %s (%s at line %zu column %zu)", file,
			          p->problem_mark.line + 1, p->problem_mark.column + 1, problem,
			          p->context, p->context_mark.line + 1, p->context_mark.column + 1);
		else
			error_set(err, "%s:%zu:%zu: %s", file, p->problem_mark.line + 1,
			          p->problem_mark.column + 1, problem);
		break;
	}
}

/*
 * libyaml builds a document in time that grows faster than its nesting: 40,000
 * levels take seconds. Walk the events first and stop at the first level past the
 * limit; a campaign needs a handful.
 */
static int yamlload_check_depth(const char *text, size_t len, const char *name, struct error *err)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, rc = 0;

	if (!yaml_parser_initialize(&parser)) {
		error_set(err, "%s: out of memory while reading YAML", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	for (;;) {
		yaml_event_type_t type;

		if (!yaml_parser_parse(&parser, &ev))
			break; /* the loader reports syntax errors with their place */
		type = ev.type;
		if (type == YAML_SEQUENCE_START_EVENT || type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (type == YAML_SEQUENCE_END_EVENT || type == YAML_MAPPING_END_EVENT)
			depth--;
		if (depth > CAMPAIGN_MAX_DEPTH) {
			error_set(err, "%s:%zu:%zu: nested deeper than %d levels", name,
			          ev.start_mark.line + 1, ev.start_mark.column + 1,
			          CAMPAIGN_MAX_DEPTH);
			rc = -1;
		}
		yaml_event_delete(&ev);
		if (rc < 0 || type == YAML_STREAM_END_EVENT)
			break;
	}
	yaml_parser_delete(&parser);
	return rc;
}

/* Load the one document of the file; a second document would be silently ignored otherwise. */
int yamlload_document(const char *text, size_t len, const char *name, yaml_document_t *doc,
                      struct error *err)
{
	yaml_document_t extra;
	yaml_parser_t parser;
	yaml_node_t *root;
	int rc = -1;

	if (yamlload_check_depth(text, len, name, err) < 0)
		return -1;
	if (!yaml_parser_initialize(&parser)) {
		error_set(err, "%s: out of memory while reading YAML", name);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, doc)) {
		yamlload_error(&parser, name, err);
		goto out;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		yamlload_error(&parser, name, err);
		yaml_document_delete(doc);
		goto out;
	}
	root = yaml_document_get_root_node(&extra);
	if (root != NULL) {
		error_set(err,
		          "%s:%zu:%zu: a second YAML document; a campaign file holds one "
		          "(remove the '---' and what follows, or split the file)",
		          name, root->start_mark.line + 1, root->start_mark.column + 1);
		yaml_document_delete(&extra);
		yaml_document_delete(doc);
		goto out;
	}
	yaml_document_delete(&extra);
	rc = 0;
out:
	yaml_parser_delete(&parser);
	return rc;
}

/* The whole file in memory: campaign_parse needs it, and plan.yaml keeps it verbatim. */
char *yamlload_read_file(const char *path, size_t *len, struct error *err)
{
	size_t have = 0, cap;
	struct stat st;
	char *buf = NULL;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		error_set(err, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0) {
		error_set(err, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		error_set(err, "%s: cannot read: %s (give the campaign's .yaml file)", path,
		          strerror(EISDIR));
		goto fail;
	}
	/* st_size is only a hint: read to EOF so pipes and /proc files work too */
	cap = S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size <= YAMLLOAD_MAX_FILE
	          ? (size_t)st.st_size + 1
	          : 4096;
	buf = xmalloc(cap);
	for (;;) {
		ssize_t r;

		if (have == cap) {
			if (cap > YAMLLOAD_MAX_FILE) {
				error_set(err, "%s: too large for a campaign (over 16MiB)", path);
				goto fail;
			}
			cap *= 2;
			buf = xreallocarray(buf, cap, 1);
		}
		r = read(fd, buf + have, cap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			error_set(err, "%s: cannot read: %s", path, strerror(errno));
			goto fail;
		}
		if (r == 0)
			break;
		have += (size_t)r;
	}
	close(fd);
	*len = have;
	return buf;
fail:
	free(buf);
	close(fd);
	return NULL;
}
