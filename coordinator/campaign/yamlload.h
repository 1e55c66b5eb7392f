/* SPDX-License-Identifier: MIT */
/* Reading one YAML document from a file or text, with errors at file:line:column. */
#ifndef IOCURVE_YAMLLOAD_H
#define IOCURVE_YAMLLOAD_H

#include <stddef.h>

#include <yaml.h>

#include "error.h"

/*
 * The one document of text (a second is refused, as is nesting deeper than
 * CAMPAIGN_MAX_DEPTH); name is the file in messages. 0, or -1 with err set.
 */
int yamlload_document(const char *text, size_t len, const char *name, yaml_document_t *doc,
                      struct error *err);
/* The whole file in memory (at most 16MiB), or NULL with err "PATH: cannot read: ...". */
char *yamlload_read_file(const char *path, size_t *len, struct error *err);

#endif
