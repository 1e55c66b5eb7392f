/* SPDX-License-Identifier: MIT */
/* One argument parser for every verb, driven by the verb's table of options. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "units.h"
#include "xalloc.h"

static size_t args_noptions(const struct args_spec *spec)
{
	size_t n = 0;

	while (spec->options != NULL && spec->options[n].name != NULL)
		n++;
	if (n > ARGS_MAX_OPTIONS)
		abort(); /* a verb's table outgrew struct args */
	return n;
}

/* The index of the option with this long name (len bytes of it), or -1. */
static int args_find_long(const struct args_spec *spec, const char *name, size_t len)
{
	for (size_t i = 0; i < args_noptions(spec); i++) {
		const char *alias = spec->options[i].alias;

		if (strlen(spec->options[i].name) == len &&
		    strncmp(spec->options[i].name, name, len) == 0)
			return (int)i;
		if (alias != NULL && strlen(alias) == len && strncmp(alias, name, len) == 0)
			return (int)i;
	}
	return -1;
}

static int args_find_short(const struct args_spec *spec, char c)
{
	for (size_t i = 0; i < args_noptions(spec); i++)
		if (spec->options[i].shortname == c)
			return (int)i;
	return -1;
}

/* "unknown option '--foo' (known: --out, --tls, --help)" */
static int args_unknown(const struct args_spec *spec, const char *what, struct error *err)
{
	char known[512];
	size_t off = 0;

	known[0] = '\0';
	for (size_t i = 0; i < args_noptions(spec) && off < sizeof(known); i++)
		off += (size_t)snprintf(known + off, sizeof(known) - off, "--%s, ",
		                        spec->options[i].name);
	error_set(err, "unknown option '%s' (known: %s--help)", what, known);
	return -1;
}

/* Record option i; val is its value for an option that takes one. */
static void args_set(struct args *a, int i, const char *val)
{
	if (val != NULL) {
		a->all[i] = xreallocarray(a->all[i], a->count[i] + 1, sizeof(*a->all[i]));
		a->all[i][a->count[i]] = val;
	}
	a->count[i]++;
	a->values[i] = val;
}

/* A long option at argv[*k]: "--name", "--name=value" or "--name value". */
static int args_long(struct args *a, int argc, char **argv, int *k, struct error *err)
{
	const char *arg = argv[*k] + 2, *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
	int i = args_find_long(a->spec, arg, len);
	const struct args_option *o;

	if (len == 4 && strncmp(arg, "help", 4) == 0) {
		a->help = true;
		return 0;
	}
	if (i < 0)
		return args_unknown(a->spec, argv[*k], err);
	o = &a->spec->options[i];
	if (o->value == NULL) {
		if (eq != NULL) {
			error_set(err, "--%s takes no value", o->name);
			return -1;
		}
		args_set(a, i, NULL);
	} else if (eq != NULL) {
		args_set(a, i, eq + 1);
	} else if (*k + 1 < argc) {
		args_set(a, i, argv[++*k]);
	} else {
		error_set(err, "--%s needs a value", o->name);
		return -1;
	}
	return 0;
}

/* One or more short options at argv[*k]: "-v", "-vj", "-o DIR", "-oDIR". */
static int args_short(struct args *a, int argc, char **argv, int *k, struct error *err)
{
	for (const char *p = argv[*k] + 1; *p != '\0'; p++) {
		int i = args_find_short(a->spec, *p);
		char what[3] = {'-', *p, '\0'};

		if (*p == 'h') {
			a->help = true;
			continue;
		}
		if (i < 0)
			return args_unknown(a->spec, what, err);
		if (a->spec->options[i].value == NULL) {
			args_set(a, i, NULL);
		} else if (p[1] != '\0') {
			args_set(a, i, p + 1);
			return 0;
		} else if (*k + 1 < argc) {
			args_set(a, i, argv[++*k]);
			return 0;
		} else {
			error_set(err, "--%s needs a value", a->spec->options[i].name);
			return -1;
		}
	}
	return 0;
}

/* After parsing: the operand count and required options. */
static int args_check(const struct args *a, struct error *err)
{
	const struct args_spec *s = a->spec;

	if (a->noperands < s->min_operands) {
		error_set(err, "missing operand (expected %s)", s->operands ? s->operands : "more");
		return -1;
	}
	if (s->max_operands >= 0 && a->noperands > s->max_operands) {
		if (s->max_operands == 0)
			error_set(err, "too many operands: '%s' (it takes none)", a->operands[0]);
		else
			error_set(err, "too many operands (expected %s)", s->operands);
		return -1;
	}
	for (size_t i = 0; i < args_noptions(s); i++)
		if (s->options[i].required && a->count[i] == 0) {
			if (s->options[i].env != NULL)
				error_set(err, "--%s is required (or set %s)", s->options[i].name,
				          s->options[i].env);
			else
				error_set(err, "--%s is required", s->options[i].name);
			return -1;
		}
	return 0;
}

/* Options not given on the command line, from their environment variables. */
static void args_env(struct args *a)
{
	for (size_t i = 0; i < args_noptions(a->spec); i++) {
		const struct args_option *o = &a->spec->options[i];
		const char *v = o->env != NULL ? getenv(o->env) : NULL;

		if (a->count[i] == 0 && o->value != NULL && v != NULL && v[0] != '\0') {
			args_set(a, (int)i, v);
			a->from_env[i] = true;
		}
	}
}

int args_parse(const struct args_spec *spec, int argc, char **argv, struct args *a,
               struct error *err)
{
	bool options_end = false;

	memset(a, 0, sizeof(*a));
	a->spec = spec;
	a->argc = argc;
	a->argv = argv;
	a->operands = xcalloc((size_t)(argc > 0 ? argc : 1), sizeof(*a->operands));
	for (int k = 1; k < argc; k++) {
		const char *arg = argv[k];
		int rc = 0;

		if (options_end || arg[0] != '-' || arg[1] == '\0')
			a->operands[a->noperands++] = argv[k];
		else if (strcmp(arg, "--") == 0)
			options_end = true;
		else if (arg[1] == '-')
			rc = args_long(a, argc, argv, &k, err);
		else
			rc = args_short(a, argc, argv, &k, err);
		if (rc < 0)
			return -1;
	}
	args_env(a);
	return a->help ? 0 : args_check(a, err);
}

void args_free(struct args *a)
{
	free(a->operands);
	a->operands = NULL;
	for (int i = 0; i < ARGS_MAX_OPTIONS; i++) {
		free(a->all[i]);
		a->all[i] = NULL;
	}
}

static int args_index(const struct args *a, const char *name)
{
	int i = args_find_long(a->spec, name, strlen(name));

	if (i < 0)
		abort(); /* asked for an option the verb does not declare */
	return i;
}

bool args_has(const struct args *a, const char *name)
{
	return a->count[args_index(a, name)] > 0;
}

const char *args_get(const struct args *a, const char *name)
{
	return a->values[args_index(a, name)];
}

const char *const *args_get_all(const struct args *a, const char *name, size_t *n)
{
	int i = args_index(a, name);

	*n = a->all[i] != NULL ? a->count[i] : 0;
	return a->all[i];
}

/* A decimal integer in [min, max]; what names the text in the error. */
static int args_uint(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out,
                     struct error *err)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v < min || v > max) {
		error_set(err, "%s %s: expected an integer from %llu to %llu", what, s,
		          (unsigned long long)min, (unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int args_get_uint(const struct args *a, const char *name, uint64_t min, uint64_t max, uint64_t *out,
                  struct error *err)
{
	const char *s = args_get(a, name);
	char what[64];

	if (s == NULL)
		return 0;
	snprintf(what, sizeof(what), "--%s", name);
	return args_uint(what, s, min, max, out, err);
}

int args_get_size(const struct args *a, const char *name, uint64_t min, uint64_t max, uint64_t *out,
                  struct error *err)
{
	const char *s = args_get(a, name);
	char lo[32], hi[32];
	uint64_t v;

	if (s == NULL)
		return 0;
	if (units_parse_size(s, &v, err) < 0 || v < min || v > max) {
		units_format_size(min, lo, sizeof(lo));
		units_format_size(max, hi, sizeof(hi));
		error_set(err, "--%s %s: expected a size from %s to %s", name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int args_get_duration(const struct args *a, const char *name, uint64_t min, uint64_t max,
                      uint64_t *out, struct error *err)
{
	const char *s = args_get(a, name);
	char lo[32], hi[32];
	uint64_t v;

	if (s == NULL)
		return 0;
	if (units_parse_duration(s, &v, err) < 0 || v < min || v > max) {
		units_format_duration(min, lo, sizeof(lo));
		units_format_duration(max, hi, sizeof(hi));
		error_set(err, "--%s %s: expected a duration from %s to %s", name, s, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

int args_operand_uint(const struct args *a, int i, const char *what, uint64_t min, uint64_t max,
                      uint64_t *out, struct error *err)
{
	if (i >= a->noperands) {
		error_set(err, "missing operand %s", what);
		return -1;
	}
	return args_uint(what, a->operands[i], min, max, out, err);
}

void args_synopsis(FILE *f, const struct args_spec *spec)
{
	fprintf(f, "%s", spec->name);
	if (spec->operands != NULL && spec->operands[0] != '\0')
		fprintf(f, " %s", spec->operands);
	for (size_t i = 0; i < args_noptions(spec); i++)
		if (spec->options[i].required)
			fprintf(f, " --%s %s", spec->options[i].name, spec->options[i].value);
	if (args_noptions(spec) > 0)
		fprintf(f, " [OPTIONS]");
}

/* "-o, --out DIR" or "    --steps N": the left column of the help. */
static void args_flag(const struct args_option *o, char *buf, size_t len)
{
	snprintf(buf, len, "%c%c%s--%s%s%s", o->shortname ? '-' : ' ',
	         o->shortname ? o->shortname : ' ', o->shortname ? ", " : "  ", o->name,
	         o->value ? " " : "", o->value ? o->value : "");
}

void args_usage(FILE *f, const struct args_spec *spec)
{
	int width = (int)strlen("-h, --help");
	char flag[128];

	for (size_t i = 0; i < args_noptions(spec); i++) {
		args_flag(&spec->options[i], flag, sizeof(flag));
		if ((int)strlen(flag) > width)
			width = (int)strlen(flag);
	}
	fprintf(f, "usage: iocurve ");
	args_synopsis(f, spec);
	fprintf(f, "\n%s\n\noptions:\n", spec->help);
	for (size_t i = 0; i < args_noptions(spec); i++) {
		const struct args_option *o = &spec->options[i];

		args_flag(o, flag, sizeof(flag));
		fprintf(f, "  %-*s  %s%s\n", width, flag, o->help,
		        o->required ? " (required)" : "");
		if (o->env != NULL)
			fprintf(f, "  %-*s  (default: $%s when set)\n", width, "", o->env);
		if (o->alias != NULL)
			fprintf(f, "  %-*s  (also --%s, its older name)\n", width, "", o->alias);
	}
	fprintf(f, "  %-*s  %s\n", width, "-h, --help", "print this help");
	if (spec->more != NULL)
		fprintf(f, "\n%s", spec->more);
}

char *args_command_line(const struct args *a)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	fputs("iocurve", f);
	for (int i = 0; i < a->argc; i++) {
		const char *w = a->argv[i];

		if (w[0] != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		                              "0123456789-_./=:,@%+") == strlen(w)) {
			fprintf(f, " %s", w);
			continue;
		}
		fputs(" '", f);
		for (; *w; w++)
			fputs(*w == '\'' ? "'\\''" : (char[2]){*w, 0}, f);
		fputc('\'', f);
	}
	fclose(f);
	return out;
}
