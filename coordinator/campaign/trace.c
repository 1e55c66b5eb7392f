/* SPDX-License-Identifier: MIT */
/* Reading fio's iolog (versions 2 and 3) into the operations a replay sends the agents. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "saferead.h"
#include "trace.h"
#include "xalloc.h"

#define TRACE_V2 "fio version 2 iolog"
#define TRACE_V3 "fio version 3 iolog"

/* A decimal count within max: digits only (no sign, no exponent, no hex). */
static bool trace_number(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (s == NULL || *s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return true;
}

/* Split line in place on blanks: at most max words; returns their count (max + 1: more). */
static size_t trace_words(char *line, char **word, size_t max)
{
	size_t n = 0;
	char *save = NULL;

	for (char *w = strtok_r(line, " \t\r", &save); w != NULL;
	     w = strtok_r(NULL, " \t\r", &save)) {
		if (n == max)
			return max + 1;
		word[n++] = w;
	}
	return n;
}

static void trace_grow(struct trace *t, uint32_t *cap)
{
	*cap = *cap ? *cap * 2 : 1024;
	if (*cap > TRACE_MAX_OPS)
		*cap = TRACE_MAX_OPS;
	t->t_ns = xreallocarray(t->t_ns, *cap, sizeof(*t->t_ns));
	t->offset = xreallocarray(t->offset, *cap, sizeof(*t->offset));
	t->len = xreallocarray(t->len, *cap, sizeof(*t->len));
	t->write = xreallocarray(t->write, *cap, sizeof(*t->write));
}

/* One line after the version line: a file action, or an operation appended to t. */
static int trace_line(struct trace *t, char *line, uint32_t *cap, struct error *err)
{
	char *w[6];
	size_t nw = trace_words(line, w, 5), at = t->version == 3 ? 1 : 0;
	uint64_t us = 0, off, len;
	const char *act;

	if (nw == 0)
		return 0; /* a blank line */
	if (nw > 5 || nw < at + 2) {
		error_set(err, "expected %s, got %zu words",
		          t->version == 3 ? "TIMESTAMP FILE ACTION [OFFSET LENGTH]"
		                          : "FILE ACTION [OFFSET LENGTH]",
		          nw);
		return -1;
	}
	if (at && !trace_number(w[0], TRACE_MAX_SPAN / 1000, &us)) {
		error_set(err, "timestamp '%s' is not a count of microseconds (at most a day)",
		          w[0]);
		return -1;
	}
	act = w[at + 1];
	if (strcmp(act, "add") == 0 || strcmp(act, "open") == 0 || strcmp(act, "close") == 0) {
		if (nw != at + 2) {
			error_set(err, "file action '%s' takes no offset or length", act);
			return -1;
		}
		return 0;
	}
	if (strcmp(act, "read") != 0 && strcmp(act, "write") != 0) {
		error_set(err,
		          "action '%s' is not replayed (read and write are; add, open and close "
		          "are taken)",
		          act);
		return -1;
	}
	if (nw != at + 4) {
		error_set(err, "%s needs an offset and a length", act);
		return -1;
	}
	if (!trace_number(w[at + 2], UINT64_MAX / 2, &off)) {
		error_set(err, "offset '%s' is not a count of bytes", w[at + 2]);
		return -1;
	}
	if (!trace_number(w[at + 3], TRACE_MAX_LEN, &len) || len == 0) {
		error_set(err, "length '%s' is not a count of bytes from 1 to %u", w[at + 3],
		          TRACE_MAX_LEN);
		return -1;
	}
	if (t->n == TRACE_MAX_OPS) {
		error_set(err, "more than %u operations (the bound of one replay)", TRACE_MAX_OPS);
		return -1;
	}
	if (at && t->n > 0 && us * 1000 < t->t_ns[t->n - 1]) {
		error_set(err, "timestamp %llu goes back (the line before was at %llu)",
		          (unsigned long long)us, (unsigned long long)(t->t_ns[t->n - 1] / 1000));
		return -1;
	}
	if (t->n == *cap)
		trace_grow(t, cap);
	t->t_ns[t->n] = us * 1000;
	t->offset[t->n] = off;
	t->len[t->n] = (uint32_t)((len + 511) / 512 * 512);
	t->write[t->n] = act[0] == 'w';
	if (t->len[t->n] > t->max_len)
		t->max_len = t->len[t->n];
	t->writes += t->write[t->n];
	t->n++;
	return 0;
}

/* Times from the first operation; the pass's length: the span plus one mean gap. */
static int trace_finish(struct trace *t, double rate, struct error *err)
{
	uint64_t first, span;

	if (t->n < 2) {
		error_set(err, "%s: %u operations; a replay needs at least 2", t->path, t->n);
		return -1;
	}
	if (t->version == 2) {
		for (uint32_t i = 0; i < t->n; i++)
			t->t_ns[i] = (uint64_t)((double)i * 1e9 / rate);
	}
	first = t->t_ns[0];
	for (uint32_t i = 0; i < t->n; i++)
		t->t_ns[i] -= first;
	span = t->t_ns[t->n - 1];
	if (span == 0) {
		error_set(err, "%s: every operation is at one time; a replay needs a span",
		          t->path);
		return -1;
	}
	t->period_ns = span + (span + (t->n - 1) / 2) / (t->n - 1);
	return 0;
}

/* The digest as 64 hex digits (and a NUL). */
static void trace_digest(EVP_MD_CTX *md, char hex[65])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	hex[0] = '\0';
	if (EVP_DigestFinal_ex(md, d, &n) != 1)
		return;
	for (unsigned int i = 0; i < n && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

struct trace *trace_load(const char *path, double rate, struct error *err)
{
	EVP_MD_CTX *md = NULL;
	struct trace *t = xcalloc(1, sizeof(*t));
	struct error lerr;
	char *buf = NULL;
	size_t cap = 0;
	uint32_t opcap = 0, lineno = 1;
	off_t total = 0;
	ssize_t len;
	FILE *f;

	t->path = xstrdup(path);
	f = saferead_fopen(AT_FDCWD, NULL, path, 0, err);
	if (f == NULL)
		goto fail;
	md = EVP_MD_CTX_new();
	if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
		error_set(err, "%s: cannot hash it (SHA-256)", path);
		goto fail;
	}
	len = saferead_line(f, &buf, &cap, TRACE_MAX_LINE);
	if (len > 0)
		EVP_DigestUpdate(md, buf, (size_t)len);
	if (len <= 0) {
		error_set(err, "%s:1: empty; expected '%s' or '%s'", path, TRACE_V3, TRACE_V2);
		goto fail;
	}
	buf[strcspn(buf, "\r\n")] = '\0';
	if (strcmp(buf, TRACE_V3) == 0) {
		t->version = 3;
	} else if (strcmp(buf, TRACE_V2) == 0) {
		t->version = 2;
		if (!(rate > 0)) {
			error_set(
			    err,
			    "%s:1: a version 2 iolog has no times: give replay.rate (ops/s at "
			    "x1), or record a version 3 one (fio 3.31 or later)",
			    path);
			goto fail;
		}
	} else {
		error_set(err, "%s:1: not a fio iolog: expected '%s' or '%s'", path, TRACE_V3,
		          TRACE_V2);
		goto fail;
	}
	total = len;
	while ((len = saferead_line(f, &buf, &cap, TRACE_MAX_LINE)) > 0) {
		lineno++;
		total += len;
		EVP_DigestUpdate(md, buf, (size_t)len);
		if (total > (off_t)TRACE_MAX_FILE) {
			error_set(err, "%s:%u: longer than %u bytes (the bound of a trace)", path,
			          lineno, TRACE_MAX_FILE);
			goto fail;
		}
		buf[strcspn(buf, "\n")] = '\0';
		if (trace_line(t, buf, &opcap, &lerr) < 0) {
			error_set(err, "%s:%u: %s", path, lineno, lerr.msg);
			goto fail;
		}
	}
	if (len < 0) {
		error_set(err, "%s:%u: a line longer than %d bytes, or unreadable", path,
		          lineno + 1, TRACE_MAX_LINE);
		goto fail;
	}
	if (trace_finish(t, rate, err) < 0)
		goto fail;
	t->bytes = (uint64_t)total;
	trace_digest(md, t->sha256);
	EVP_MD_CTX_free(md);
	free(buf);
	fclose(f);
	return t;
fail:
	EVP_MD_CTX_free(md);
	free(buf);
	if (f != NULL)
		fclose(f);
	trace_free(t);
	return NULL;
}

void trace_free(struct trace *t)
{
	if (t == NULL)
		return;
	free(t->path);
	free(t->t_ns);
	free(t->offset);
	free(t->len);
	free(t->write);
	free(t);
}

double trace_rate(const struct trace *t)
{
	return t->period_ns ? (double)t->n * 1e9 / (double)t->period_ns : 0;
}
