/* SPDX-License-Identifier: MIT */
/*
 * One argument parser for every verb: a verb declares its options and how many
 * operands it takes; args_parse reads argv against that table, args_usage prints
 * the help from it, and every error is worded the same way for every verb.
 */
#ifndef IOCURVE_ARGS_H
#define IOCURVE_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"

/* At most this many options per verb (not counting the implicit --help). */
#define ARGS_MAX_OPTIONS 16

struct args_option {
	const char *name;  /* long name without the dashes: "out" is --out */
	char shortname;    /* 'o' is -o; 0 for none */
	const char *value; /* placeholder of its value ("DIR"); NULL: a flag */
	const char *help;  /* one line */
	bool required;     /* the verb cannot run without it */
	const char *env;   /* an environment variable that gives it when absent, or NULL */
	const char *alias; /* an older long name still accepted, or NULL */
};

struct args_spec {
	const char *name;     /* the verb: "run" */
	const char *operands; /* synopsis of the operands: "FILE.yaml", "[ID]" */
	const char *help;     /* one line: what the verb does */
	const char *more;     /* further help text printed after the options, or NULL */
	/* The options, ended by one with name NULL; -h/--help is always known. */
	const struct args_option *options;
	int min_operands;
	int max_operands; /* -1: no limit */
};

/* What args_parse found. */
struct args {
	const struct args_spec *spec;
	const char *values[ARGS_MAX_OPTIONS]; /* per option: its last value */
	unsigned count[ARGS_MAX_OPTIONS];     /* per option: how often it was given */
	const char **all[ARGS_MAX_OPTIONS];   /* per option: every value given, in order */
	bool from_env[ARGS_MAX_OPTIONS];      /* per option: its value came from o->env */
	char **operands;                      /* in order; NULL-terminated */
	int argc;                             /* the verb's words as given (argv[0] the verb) */
	char **argv;
	int noperands;
	bool help; /* -h or --help: print args_usage and do nothing else */
};

/*
 * Parse argv (argv[0] is the verb) against spec. Options and operands may be mixed;
 * "--" ends the options. Long options take "--opt value" or "--opt=value", short
 * ones "-o value" or "-ovalue"; flags may be grouped ("-vj"). Returns 0, or -1 with
 * err saying what was wrong ("unknown option '--foo' (known: ...)", "--out needs a
 * value", "too many operands"); with help set, operands and required options are not
 * checked. An option with an env variable that was not given takes the variable's
 * value when it is set and not empty. Free with args_free either way.
 */
int args_parse(const struct args_spec *spec, int argc, char **argv, struct args *a,
               struct error *err);
void args_free(struct args *a);
/*
 * The command as typed, for meta.json: "iocurve run demo.yaml --out r1", each word
 * a shell would split or expand quoted ('my file.yaml'). Free it.
 */
char *args_command_line(const struct args *a);

/* Whether the option (by long name) was given. An unknown name is a bug: abort. */
bool args_has(const struct args *a, const char *name);
/* Its value (the last if given more than once), or NULL when absent. */
const char *args_get(const struct args *a, const char *name);
/* Every value it was given on the command line, in order (--set A --set B); *n of them. */
const char *const *args_get_all(const struct args *a, const char *name, size_t *n);
/*
 * Its value as an integer in [min, max], *out untouched when absent. Returns 0, or
 * -1 with err naming the option: "--max-steps 0: expected an integer from 1 to 9".
 */
int args_get_uint(const struct args *a, const char *name, uint64_t min, uint64_t max, uint64_t *out,
                  struct error *err);
/* The same for a size ("64KiB"); the range is printed as sizes. */
int args_get_size(const struct args *a, const char *name, uint64_t min, uint64_t max, uint64_t *out,
                  struct error *err);
/* The same for a duration in nanoseconds ("500ms"); the range is printed as durations. */
int args_get_duration(const struct args *a, const char *name, uint64_t min, uint64_t max,
                      uint64_t *out, struct error *err);
/* Operand i as an integer in [min, max]; what names it in the error ("ID"). */
int args_operand_uint(const struct args *a, int i, const char *what, uint64_t min, uint64_t max,
                      uint64_t *out, struct error *err);

/* "usage: iocurve VERB OPERANDS [OPTIONS]", the help line, one line per option. */
void args_usage(FILE *f, const struct args_spec *spec);
/* Just the synopsis: "VERB OPERANDS [OPTIONS]" (for the list of verbs). */
void args_synopsis(FILE *f, const struct args_spec *spec);

#endif
