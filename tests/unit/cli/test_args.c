/* SPDX-License-Identifier: MIT */
/* Unit tests for the verbs' argument parser: values, operand counts, errors and help text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "args.h"

static const struct args_option test_args_options[] = {
    {"out", 'o', "DIR", "the results directory", false},
    {"verbose", 'v', NULL, "say more", false},
    {"json", 'j', NULL, "print JSON", false},
    {"steps", 0, "N", "how many steps", false},
    {"max-frame", 'F', "SIZE", "the largest frame", false},
    {"dead-man", 'D', "DURATION", "how long unsupervised I/O may last", false},
    {NULL},
};

static const struct args_spec test_args_spec = {
    .name = "run",
    .operands = "FILE.yaml",
    .help = "run a campaign",
    .more = "More words.\n",
    .options = test_args_options,
    .min_operands = 1,
    .max_operands = 1,
};

static void test_args_contains(const char *msg, const char *part)
{
	if (strstr(msg, part) == NULL)
		fail_msg("\"%s\" does not contain \"%s\"", msg, part);
}

/* Parse a NULL-terminated list of words after the verb; must succeed. */
static void test_args_ok(const struct args_spec *spec, struct args *a, char **words)
{
	char *argv[16] = {(char *)spec->name};
	struct error err = {{0}};
	int argc = 1;

	while (words[argc - 1] != NULL)
		argv[argc] = words[argc - 1], argc++;
	if (args_parse(spec, argc, argv, a, &err) != 0)
		fail_msg("refused: %s", err.msg);
}

/* Parse; must fail with a message containing want. */
static void test_args_fails(const struct args_spec *spec, char **words, const char *want)
{
	char *argv[16] = {(char *)spec->name};
	struct error err = {{0}};
	struct args a;
	int argc = 1;

	while (words[argc - 1] != NULL)
		argv[argc] = words[argc - 1], argc++;
	assert_int_equal(args_parse(spec, argc, argv, &a, &err), -1);
	test_args_contains(err.msg, want);
	args_free(&a);
}

#define WORDS(...) ((char *[]){__VA_ARGS__, NULL})

static void test_args_flags_and_values(void **state)
{
	struct args a;

	test_args_ok(&test_args_spec, &a, WORDS("-v", "f.yaml", "--out", "r1", "--json"));
	assert_true(args_has(&a, "verbose"));
	assert_true(args_has(&a, "json"));
	assert_false(args_has(&a, "steps"));
	assert_null(args_get(&a, "steps"));
	assert_string_equal(args_get(&a, "out"), "r1");
	assert_int_equal(a.noperands, 1);
	assert_string_equal(a.operands[0], "f.yaml");
	assert_false(a.help);
	args_free(&a);

	/* --opt=value, -oVALUE, grouped flags, the last of a repeated option wins. */
	test_args_ok(&test_args_spec, &a, WORDS("--out=a=b", "-vj", "x.yaml", "-oc", "--steps=3"));
	assert_string_equal(args_get(&a, "out"), "c");
	assert_string_equal(args_get(&a, "steps"), "3");
	assert_true(args_has(&a, "verbose") && args_has(&a, "json"));
	args_free(&a);
	test_args_ok(&test_args_spec, &a, WORDS("--out=a=b", "x.yaml"));
	assert_string_equal(args_get(&a, "out"), "a=b");
	args_free(&a);

	/* After "--" a word that looks like an option is an operand; so is "-". */
	test_args_ok(&test_args_spec, &a, WORDS("--", "--out"));
	assert_string_equal(a.operands[0], "--out");
	assert_null(args_get(&a, "out"));
	args_free(&a);
	test_args_ok(&test_args_spec, &a, WORDS("-"));
	assert_string_equal(a.operands[0], "-");
	args_free(&a);
}

static void test_args_missing_value(void **state)
{
	test_args_fails(&test_args_spec, WORDS("f.yaml", "--out"), "--out needs a value");
	test_args_fails(&test_args_spec, WORDS("f.yaml", "-o"), "--out needs a value");
	test_args_fails(&test_args_spec, WORDS("f.yaml", "--verbose=yes"),
	                "--verbose takes no value");
}

static void test_args_unknown(void **state)
{
	test_args_fails(&test_args_spec, WORDS("f.yaml", "--foo"),
	                "unknown option '--foo' (known: --out, --verbose, --json, --steps, "
	                "--max-frame, --dead-man, --help)");
	test_args_fails(&test_args_spec, WORDS("f.yaml", "--foo=1"), "unknown option '--foo=1'");
	test_args_fails(&test_args_spec, WORDS("-vx", "f.yaml"),
	                "unknown option '-x' (known: --out");
	/* A prefix of a long name is not that option. */
	test_args_fails(&test_args_spec, WORDS("f.yaml", "--ou", "d"), "unknown option '--ou'");
}

static void test_args_operand_counts(void **state)
{
	static const struct args_spec none = {.name = "status", .max_operands = 0};
	static const struct args_spec many = {.name = "compare",
	                                      .operands = "DIR DIR [DIR...]",
	                                      .min_operands = 2,
	                                      .max_operands = -1};
	struct args a;

	test_args_fails(&test_args_spec, WORDS("--verbose"),
	                "missing operand (expected FILE.yaml)");
	test_args_fails(&test_args_spec, WORDS("a.yaml", "b.yaml"),
	                "too many operands (expected FILE.yaml)");
	test_args_fails(&none, WORDS("x"), "too many operands: 'x' (it takes none)");
	test_args_fails(&many, WORDS("d1"), "missing operand (expected DIR DIR [DIR...])");
	test_args_ok(&many, &a, WORDS("d1", "d2", "d3", "d4"));
	assert_int_equal(a.noperands, 4);
	assert_string_equal(a.operands[3], "d4");
	assert_null(a.operands[4]);
	args_free(&a);

	/* --help needs no operands, and is still seen among other words. */
	test_args_ok(&test_args_spec, &a, WORDS("--help"));
	assert_true(a.help);
	args_free(&a);
	test_args_ok(&test_args_spec, &a, WORDS("a", "b", "-h"));
	assert_true(a.help);
	args_free(&a);
}

static void test_args_required(void **state)
{
	static const struct args_option opts[] = {
	    {"listen", 'l', "HOST:PORT", "the address", true},
	    {NULL},
	};
	static const struct args_spec spec = {.name = "serve", .options = opts};
	struct args a;

	test_args_fails(&spec, WORDS("-v"), "unknown option '-v' (known: --listen, --help)");
	{
		char *argv[] = {"serve"};
		struct error err;

		assert_int_equal(args_parse(&spec, 1, argv, &a, &err), -1);
		assert_string_equal(err.msg, "--listen is required");
		args_free(&a);
	}
	test_args_ok(&spec, &a, WORDS("-l", "127.0.0.1:1"));
	assert_string_equal(args_get(&a, "listen"), "127.0.0.1:1");
	args_free(&a);
}

static void test_args_uint(void **state)
{
	struct error err = {{0}};
	struct args a;
	uint64_t v = 77;

	test_args_ok(&test_args_spec, &a, WORDS("f", "--steps", "12", "--max-frame", "64KiB"));
	assert_int_equal(args_get_uint(&a, "steps", 1, 100, &v, &err), 0);
	assert_int_equal(v, 12);
	assert_int_equal(args_get_uint(&a, "steps", 1, 10, &v, &err), -1);
	assert_string_equal(err.msg, "--steps 12: expected an integer from 1 to 10");
	assert_int_equal(v, 12);
	assert_int_equal(args_get_size(&a, "max-frame", 1024, 1u << 30, &v, &err), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(args_get_size(&a, "max-frame", 1024, 4096, &v, &err), -1);
	assert_string_equal(err.msg, "--max-frame 64KiB: expected a size from 1KiB to 4KiB");
	/* Absent: the default stays. */
	assert_int_equal(args_operand_uint(&a, 0, "ID", 1, 9, &v, &err), -1);
	assert_string_equal(err.msg, "ID f: expected an integer from 1 to 9");
	assert_int_equal(args_operand_uint(&a, 1, "ID", 1, 9, &v, &err), -1);
	assert_string_equal(err.msg, "missing operand ID");
	args_free(&a);

	test_args_ok(&test_args_spec, &a, WORDS("f"));
	v = 5;
	assert_int_equal(args_get_uint(&a, "steps", 1, 10, &v, &err), 0);
	assert_int_equal(v, 5);
	args_free(&a);

	for (size_t i = 0; i < 4; i++) {
		static char *bad[] = {"-1", "", "3x", "99999999999999999999999"};

		test_args_ok(&test_args_spec, &a, WORDS("f", "--steps", bad[i]));
		assert_int_equal(args_get_uint(&a, "steps", 0, UINT64_MAX, &v, &err), -1);
		test_args_contains(err.msg, "--steps");
		test_args_contains(err.msg, "expected an integer");
		args_free(&a);
	}
}

static void test_args_duration(void **state)
{
	struct error err = {{0}};
	struct args a;
	uint64_t v = 7;

	test_args_ok(&test_args_spec, &a, WORDS("f", "--dead-man", "1500ms"));
	assert_int_equal(args_get_duration(&a, "dead-man", 200000000, 3600000000000ull, &v, &err),
	                 0);
	assert_int_equal(v, 1500000000ull);
	assert_int_equal(args_get_duration(&a, "dead-man", 2000000000ull, 3000000000ull, &v, &err),
	                 -1);
	test_args_contains(err.msg, "--dead-man 1500ms: expected a duration from 2");
	args_free(&a);
	test_args_ok(&test_args_spec, &a, WORDS("f", "--dead-man", "soon"));
	assert_int_equal(args_get_duration(&a, "dead-man", 1, 10, &v, &err), -1);
	test_args_contains(err.msg, "--dead-man soon");
	assert_int_equal(v, 1500000000ull);
	args_free(&a);
}

static void test_args_help_text(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	args_usage(f, &test_args_spec);
	fclose(f);
	test_args_contains(text, "usage: iocurve run FILE.yaml [OPTIONS]\nrun a campaign\n");
	test_args_contains(text, "-o, --out DIR");
	test_args_contains(text, "the results directory");
	test_args_contains(text, "-v, --verbose ");
	test_args_contains(text, "-j, --json ");
	test_args_contains(text, "    --steps N ");
	test_args_contains(text, "-F, --max-frame SIZE");
	test_args_contains(text, "-h, --help");
	test_args_contains(text, "\nMore words.\n");
	for (size_t i = 0; test_args_options[i].name != NULL; i++)
		test_args_contains(text, test_args_options[i].help);
	free(text);
}

/* An option's environment variable stands in when it is not given; the command line wins. */
static void test_args_env_and_alias(void **state)
{
	static const struct args_option opts[] = {
	    {"coordinator", 'C', "SOCKET", "the socket", false, "IOCURVE_TEST_SOCK"},
	    {"tls", 't', "DIR", "certificates", true, "IOCURVE_TEST_TLS"},
	    {"no-queue", 'W', NULL, "refuse to queue", false, NULL, "no-wait"},
	    {NULL},
	};
	static const struct args_spec spec = {.name = "serve", .help = "h", .options = opts};
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	struct args a;

	unsetenv("IOCURVE_TEST_SOCK");
	unsetenv("IOCURVE_TEST_TLS");
	test_args_fails(&spec, WORDS("-v"), "unknown option '-v'");
	test_args_fails(&spec, WORDS("--no-queue"), "--tls is required (or set IOCURVE_TEST_TLS)");
	setenv("IOCURVE_TEST_TLS", "", 1); /* empty: as if unset */
	test_args_fails(&spec, WORDS("--no-queue"), "--tls is required");
	setenv("IOCURVE_TEST_TLS", "/etc/iocurve", 1);
	setenv("IOCURVE_TEST_SOCK", "/run/a.sock", 1);
	test_args_ok(&spec, &a, WORDS("--no-wait"));
	assert_true(args_has(&a, "no-queue"));
	assert_string_equal(args_get(&a, "tls"), "/etc/iocurve");
	assert_string_equal(args_get(&a, "coordinator"), "/run/a.sock");
	assert_true(a.from_env[0]);
	args_free(&a);
	test_args_ok(&spec, &a, WORDS("--coordinator", "/tmp/b.sock"));
	assert_string_equal(args_get(&a, "coordinator"), "/tmp/b.sock");
	assert_false(a.from_env[0]);
	assert_false(args_has(&a, "no-queue"));
	args_free(&a);
	unsetenv("IOCURVE_TEST_SOCK");
	unsetenv("IOCURVE_TEST_TLS");

	f = open_memstream(&text, &len);
	args_usage(f, &spec);
	fclose(f);
	test_args_contains(text, "(default: $IOCURVE_TEST_SOCK when set)");
	test_args_contains(text, "(also --no-wait, its older name)");
	free(text);
}

/* The command line kept in meta.json reads back as the words given, through a shell. */
static void test_args_command_line(void **state)
{
	char *argv[] = {"run", "my plan.yaml", "--out", "it's", "--out", "a$b", "--steps=3", "-v"};
	struct error err = {{0}};
	struct args a;
	char *line;

	assert_int_equal(args_parse(&test_args_spec, 8, argv, &a, &err), 0);
	line = args_command_line(&a);
	assert_string_equal(line,
	                    "iocurve run 'my plan.yaml' --out 'it'\\''s' --out 'a$b' --steps=3 -v");
	free(line);
	args_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_args_flags_and_values),
	    cmocka_unit_test(test_args_missing_value),
	    cmocka_unit_test(test_args_unknown),
	    cmocka_unit_test(test_args_operand_counts),
	    cmocka_unit_test(test_args_required),
	    cmocka_unit_test(test_args_uint),
	    cmocka_unit_test(test_args_duration),
	    cmocka_unit_test(test_args_help_text),
	    cmocka_unit_test(test_args_env_and_alias),
	    cmocka_unit_test(test_args_command_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
