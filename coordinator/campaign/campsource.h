/* SPDX-License-Identifier: MIT */
/*
 * A campaign file as the user writes it, made the campaign that runs: `include:
 * FILE` (its mapping gives defaults the including file overrides), ${NAME} and
 * ${NAME:-default} from the environment in values ($$ for a '$'), and `--set
 * KEY=VALUE` overrides by dotted path (workloads.NAME.key addresses a workload by its
 * name). The result is one YAML document with nothing left to expand, what plan.yaml
 * keeps and a daemon is handed, whose errors lead back to the file, line and column
 * or the --set argument each value came from.
 */
#ifndef IOCURVE_CAMPSOURCE_H
#define IOCURVE_CAMPSOURCE_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "yamltree.h"

/* What a campaign file is read with. */
struct campsource {
	const char *const *sets; /* "KEY=VALUE", applied in order after includes */
	size_t nsets;
	/* the environment ${NAME} reads; NULL: the process's (getenv) */
	const char *(*getenv)(void *arg, const char *name);
	void *getenv_arg;
};

struct campsource_result {
	char *text; /* the effective campaign */
	size_t len;
	/*
	 * Whether text was generated (the file used include, $ or there were --set
	 * arguments); else text is the file as written, and build_err (when set) what
	 * the language made of a file the campaign parser may still explain better.
	 */
	bool generated;
	bool build_failed;
	struct error build_err;
	const char *path; /* the campaign file */
	struct yamltree tree;
	struct yamltree_text out;
};

/* Read path with src (NULL: no --set, the process's environment). 0, or -1 with err. */
int campsource_expand(const char *path, const struct campsource *src, struct campsource_result *r,
                      struct error *err);
/* For yamlnode_doc.where over r->text: "FILE:L:C: " or "--set K=V: ", and " (from ${X})". */
void campsource_where(void *arg, const yaml_mark_t *mark, char *pre, size_t prelen, char *post,
                      size_t postlen);
void campsource_result_free(struct campsource_result *r);

#endif
