/* SPDX-License-Identifier: MIT */
/* The Prometheus text exposition format, read bounded, one selector at a time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "promtext.h"

/* A line being read: [p, end). */
struct promtext_cur {
	const char *p, *end;
};

static bool promtext_blank(char c)
{
	return c == ' ' || c == '\t';
}

static void promtext_skip_blanks(struct promtext_cur *c)
{
	while (c->p < c->end && promtext_blank(*c->p))
		c->p++;
}

static bool promtext_name_char(char c, bool first, bool colon)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_')
		return true;
	if (c == ':' && colon)
		return true;
	return !first && c >= '0' && c <= '9';
}

/* A metric name (colon allowed) or a label name into out; false when none or too long. */
static bool promtext_name(struct promtext_cur *c, bool colon, char *out, size_t len)
{
	size_t n = 0;

	while (c->p + n < c->end && promtext_name_char(c->p[n], n == 0, colon))
		n++;
	if (n == 0 || n >= len)
		return false;
	memcpy(out, c->p, n);
	out[n] = '\0';
	c->p += n;
	return true;
}

/* A quoted label value with its escapes, unescaped into out. */
static bool promtext_quoted(struct promtext_cur *c, char *out, size_t len, const char **why)
{
	size_t n = 0;

	if (c->p >= c->end || *c->p != '"') {
		*why = "a label value is not quoted";
		return false;
	}
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		char ch = *c->p++;

		if (ch == '\\') {
			if (c->p >= c->end)
				break;
			ch = *c->p++;
			if (ch == 'n')
				ch = '\n';
			else if (ch != '\\' && ch != '"') {
				*why = "a label value has an unknown escape";
				return false;
			}
		}
		if (n + 1 >= len) {
			*why = "a label value is too long";
			return false;
		}
		out[n++] = ch;
	}
	if (c->p >= c->end) {
		*why = "a label value is not closed";
		return false;
	}
	c->p++;
	out[n] = '\0';
	return true;
}

bool promtext_float(const char *s, size_t len, double *out)
{
	char buf[64], *end;
	size_t i = 0;

	if (len == 3 && memcmp(s, "NaN", 3) == 0) {
		*out = NAN;
		return true;
	}
	if ((len == 4 && (memcmp(s, "+Inf", 4) == 0 || memcmp(s, "-Inf", 4) == 0)) ||
	    (len == 3 && memcmp(s, "Inf", 3) == 0)) {
		*out = s[0] == '-' ? -INFINITY : INFINITY;
		return true;
	}
	if (len == 0 || len >= sizeof(buf))
		return false;
	/* decimal digits, a point, an exponent and signs only: strtod's hex and words are not Go's
	 */
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
		      s[i] == '+' || s[i] == '-'))
			return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return end == buf + len;
}

/* The labels of a sample; *match is whether they carry every matcher of sel. */
static bool promtext_labels(struct promtext_cur *c, const struct promtext_selector *sel,
                            bool *match, const char **why)
{
	bool seen[PROMTEXT_LABELS_MAX] = {false};
	char name[PROMTEXT_NAME_MAX];
	char value[PROMTEXT_VALUE_LEN];

	c->p++; /* '{' */
	for (;;) {
		promtext_skip_blanks(c);
		if (c->p < c->end && *c->p == '}')
			break;
		if (!promtext_name(c, false, name, sizeof(name))) {
			*why = "a label name is missing or too long";
			return false;
		}
		promtext_skip_blanks(c);
		if (c->p >= c->end || *c->p != '=') {
			*why = "a label has no '='";
			return false;
		}
		c->p++;
		promtext_skip_blanks(c);
		if (!promtext_quoted(c, value, sizeof(value), why))
			return false;
		for (size_t i = 0; sel != NULL && i < sel->nlabels; i++)
			if (strcmp(sel->labels[i].name, name) == 0 &&
			    strcmp(sel->labels[i].value, value) == 0)
				seen[i] = true;
		promtext_skip_blanks(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			continue;
		}
		if (c->p < c->end && *c->p == '}')
			break;
		*why = "labels are not closed with '}'";
		return false;
	}
	c->p++;
	for (size_t i = 0; sel != NULL && i < sel->nlabels; i++)
		if (!seen[i])
			*match = false;
	return true;
}

/* The type of the metric a sample name belongs to: its own, or its histogram's or summary's. */
static bool promtext_is_family(const char *family, const char *name)
{
	size_t n = strlen(family);
	static const char *const suffixes[] = {"", "_total", "_sum", "_count", "_bucket", NULL};

	if (strncmp(family, name, n) != 0)
		return false;
	for (size_t i = 0; suffixes[i] != NULL; i++)
		if (strcmp(name + n, suffixes[i]) == 0)
			return true;
	return false;
}

/* `# TYPE NAME TYPE` for the selector's family: whether it is a counter. */
static void promtext_comment(struct promtext_cur *c, const struct promtext_selector *sel,
                             struct promtext_result *res)
{
	char name[PROMTEXT_NAME_MAX];
	size_t n;

	c->p++;
	promtext_skip_blanks(c);
	if (c->end - c->p < 4 || memcmp(c->p, "TYPE", 4) != 0)
		return; /* HELP or any other comment: nothing to take */
	c->p += 4;
	promtext_skip_blanks(c);
	if (!promtext_name(c, true, name, sizeof(name)) || !promtext_is_family(name, sel->name))
		return;
	promtext_skip_blanks(c);
	n = (size_t)(c->end - c->p);
	while (n > 0 && (promtext_blank(c->p[n - 1]) || c->p[n - 1] == '\r'))
		n--;
	if (n == 7 && memcmp(c->p, "counter", 7) == 0)
		res->counter = true;
	else if ((n == 9 && memcmp(c->p, "histogram", 9) == 0) ||
	         (n == 7 && memcmp(c->p, "summary", 7) == 0))
		/* a histogram's or summary's _sum, _count and _bucket only ever grow */
		res->counter = strcmp(name, sel->name) != 0;
	else
		res->counter = false; /* gauge, untyped: as written */
}

static void promtext_bad(struct promtext_result *res, size_t line, const char *why)
{
	if (res->bad_lines++ == 0) {
		res->bad_line = line;
		snprintf(res->bad_why, sizeof(res->bad_why), "%s", why);
	}
}

/* One sample line; false with why when it does not parse. */
static bool promtext_sample(struct promtext_cur *c, const struct promtext_selector *sel,
                            struct promtext_result *res, const char **why)
{
	char name[PROMTEXT_NAME_MAX];
	bool match;
	const char *v;
	double value;

	if (!promtext_name(c, true, name, sizeof(name))) {
		*why = "no metric name";
		return false;
	}
	match = strcmp(name, sel->name) == 0;
	promtext_skip_blanks(c);
	if (c->p < c->end && *c->p == '{') {
		if (!promtext_labels(c, sel, &match, why))
			return false;
	} else if (sel->nlabels > 0) {
		match = false; /* no labels: none of the selector's */
	}
	if (c->p < c->end && *c->p == '{')
		return false;
	promtext_skip_blanks(c);
	v = c->p;
	while (c->p < c->end && !promtext_blank(*c->p) && *c->p != '\r')
		c->p++;
	if (!promtext_float(v, (size_t)(c->p - v), &value)) {
		*why = "the value is not a number";
		return false;
	}
	/* a timestamp may follow; anything after it is not the format */
	promtext_skip_blanks(c);
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	if (c->p < c->end && *c->p == '-') {
		*why = "the timestamp is not a whole number";
		return false;
	}
	promtext_skip_blanks(c);
	if (c->p < c->end && *c->p == '\r')
		c->p++;
	if (c->p != c->end) {
		*why = "text after the value";
		return false;
	}
	if (!match)
		return true;
	if (!isfinite(value) || fabs(value) > PROMTEXT_VALUE_MAX) {
		if (res->refused++ == 0)
			snprintf(res->refused_why, sizeof(res->refused_why),
			         "%s: value %.17g refused (%s)", name, value,
			         isfinite(value) ? "over 1e15" : "not finite");
		return true;
	}
	/*
	 * The sum is bounded as a sample is: many samples under the bound can pass it, and
	 * then no value is taken (a part of the sum would read as the whole).
	 */
	if (res->over || fabs(res->value + value) > PROMTEXT_VALUE_MAX) {
		if (!res->over)
			snprintf(res->refused_why, sizeof(res->refused_why),
			         "%s: the sum of its samples is over 1e15: refused", name);
		res->over = true;
		res->refused++;
		return true;
	}
	res->matched++;
	res->value += value;
	return true;
}

void promtext_scan(const char *text, size_t len, const struct promtext_selector *sel,
                   struct promtext_result *res)
{
	const char *p = text, *end = text + len;
	size_t n = strlen(sel->name);

	memset(res, 0, sizeof(*res));
	res->counter = n > 6 && strcmp(sel->name + n - 6, "_total") == 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct promtext_cur c = {p, nl != NULL ? nl : end};
		const char *why = NULL;

		p = nl != NULL ? nl + 1 : end;
		res->lines++;
		if (c.end - c.p > PROMTEXT_LINE_MAX) {
			promtext_bad(res, res->lines, "the line is longer than 65536 bytes");
			continue;
		}
		if (memchr(c.p, '\0', (size_t)(c.end - c.p)) != NULL) {
			promtext_bad(res, res->lines, "the line holds a NUL byte");
			continue;
		}
		promtext_skip_blanks(&c);
		if (c.p == c.end || (c.end - c.p == 1 && *c.p == '\r'))
			continue;
		if (*c.p == '#') {
			promtext_comment(&c, sel, res);
			continue;
		}
		if (!promtext_sample(&c, sel, res, &why))
			promtext_bad(res, res->lines, why != NULL ? why : "labels are malformed");
	}
	if (res->over) {
		res->matched = 0;
		res->value = 0;
	}
}

int promtext_selector_parse(const char *s, struct promtext_selector *sel, struct error *err)
{
	struct promtext_cur c = {s, s + strlen(s)};
	const char *why = NULL;

	memset(sel, 0, sizeof(*sel));
	if (!promtext_name(&c, true, sel->name, sizeof(sel->name))) {
		error_set(err, "'%s' does not start with a metric name", s);
		return -1;
	}
	if (c.p == c.end)
		return 0;
	if (*c.p != '{') {
		error_set(err, "'%s': expected '{' after the metric name at byte %zu", s,
		          (size_t)(c.p - s) + 1);
		return -1;
	}
	c.p++;
	for (;;) {
		struct promtext_label *l;

		promtext_skip_blanks(&c);
		if (c.p < c.end && *c.p == '}')
			break;
		if (sel->nlabels == PROMTEXT_LABELS_MAX) {
			error_set(err, "'%s': more than %d labels", s, PROMTEXT_LABELS_MAX);
			return -1;
		}
		l = &sel->labels[sel->nlabels++];
		if (!promtext_name(&c, false, l->name, sizeof(l->name))) {
			why = "a label name";
			goto bad;
		}
		promtext_skip_blanks(&c);
		if (c.p >= c.end || *c.p != '=') {
			why = "'=' (equality is the only matcher)";
			goto bad;
		}
		c.p++;
		promtext_skip_blanks(&c);
		if (!promtext_quoted(&c, l->value, sizeof(l->value), &why)) {
			why = "a quoted label value";
			goto bad;
		}
		promtext_skip_blanks(&c);
		if (c.p < c.end && *c.p == ',') {
			c.p++;
			continue;
		}
		if (c.p < c.end && *c.p == '}')
			break;
		why = "',' or '}'";
		goto bad;
	}
	c.p++;
	if (c.p != c.end) {
		why = "the end after '}'";
		goto bad;
	}
	return 0;
bad:
	error_set(err, "'%s': expected %s at byte %zu", s, why, (size_t)(c.p - s) + 1);
	return -1;
}
