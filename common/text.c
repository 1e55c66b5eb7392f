/* SPDX-License-Identifier: MIT */
/* Text from the wire made safe for a terminal or a log: control characters escaped. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>

#include "text.h"
#include "xalloc.h"

/*
 * The length of the valid UTF-8 character at p (1 for ASCII), or 0 when p does
 * not start one: a stray continuation byte, an overlong form, a surrogate, a
 * code point past U+10FFFF, or a sequence cut short.
 */
static size_t text_utf8_len(const unsigned char *p)
{
	size_t n;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1fu;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0fu;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0; /* also stops at the terminating NUL */
		cp = cp << 6 | (p[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* How many bytes of in[0..] form one control character to escape (0: none). */
static size_t text_control_len(const unsigned char *p, bool multiline)
{
	if (p[0] < 0x20)
		return multiline && (p[0] == '\n' || p[0] == '\t') ? 0 : 1;
	if (p[0] == 0x7f)
		return 1;
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) /* C1 in UTF-8 */
		return 2;
	/* A lone C1 byte is not UTF-8: some terminals still obey it (0x9b is CSI). */
	if (p[0] >= 0x80 && p[0] <= 0x9f)
		return 1;
	/* Any other byte that is not UTF-8: JSON cannot hold it, a terminal may misread it. */
	if (text_utf8_len(p) == 0)
		return 1;
	return 0;
}

char *text_clean(const char *in, char *out, size_t len, bool multiline)
{
	const unsigned char *p = (const unsigned char *)(in ? in : "");
	size_t o = 0;

	if (len == 0)
		return out;
	while (*p) {
		size_t n = text_control_len(p, multiline);

		if (n == 0) {
			/* A character is copied whole or not at all: the text stays UTF-8. */
			n = text_utf8_len(p);
			if (o + n >= len)
				break;
			for (size_t i = 0; i < n; i++)
				out[o++] = (char)*p++;
			continue;
		}
		if (o + 4 * n >= len)
			break;
		for (size_t i = 0; i < n; i++)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", p[i]);
		p += n;
	}
	out[o] = '\0';
	return out;
}

bool text_name_ok(const char *s)
{
	for (; *s != '\0'; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return false;
	}
	return true;
}

/* One line of text (no newline in it) wrapped; col: the characters already on the line. */
static void text_wrap_line(FILE *f, const char *p, size_t len, size_t width, const char *indent,
                           size_t col)
{
	const char *end = p + len;
	size_t lead = strlen(indent);
	bool any = false; /* a word on the line already */

	width = width > lead + 8 ? width : lead + 8;
	while (p < end) {
		size_t word = 0;

		while (p + word < end && p[word] != ' ')
			word++;
		if (any && col + 1 + word > width) {
			fprintf(f, "\n%s", indent);
			col = lead;
			any = false;
		} else if (any) {
			fputc(' ', f);
			col++;
		}
		while (col + word > width) {
			size_t room = width - col;

			fwrite(p, 1, room, f);
			fprintf(f, "\n%s", indent);
			p += room;
			word -= room;
			col = lead;
		}
		fwrite(p, 1, word, f);
		col += word;
		any = any || word > 0;
		p += word;
		while (p < end && *p == ' ')
			p++;
	}
}

void text_wrap(FILE *f, const char *text, size_t width, const char *indent)
{
	bool first = true;

	for (const char *p = text; first || *p != '\0'; first = false) {
		size_t len = strcspn(p, "\n");

		if (!first)
			fputs(indent, f);
		text_wrap_line(f, p, len, width, indent, first ? 0 : strlen(indent));
		fputc('\n', f);
		p += len;
		if (*p == '\n')
			p++;
	}
}

void text_wrap_lines(FILE *f, const char *text, size_t width)
{
	for (const char *p = text; *p != '\0';) {
		size_t len = strcspn(p, "\n");

		if (len <= width || p[0] == '|') {
			fwrite(p, 1, len, f);
			fputc('\n', f);
		} else {
			char *line = xstrndup(p, len);

			text_wrap(f, line, width, "  ");
			free(line);
		}
		p += len;
		if (*p == '\n')
			p++;
	}
}

/*
 * Why path is not plain, NULL when it is: a control character (a newline would make
 * two lines of an --allow list or a log), an empty, '.' or '..' part, or longer than
 * a path can be. Asked of a results directory's plan.yaml, whose target paths become
 * what `run --resume`'s local agents may create and write.
 */
const char *text_path_unplain(const char *path)
{
	const char *part = path + 1;

	if (strlen(path) >= PATH_MAX)
		return "longer than a path can be";
	for (const unsigned char *p = (const unsigned char *)path; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			return "a control character";
	for (;;) {
		const char *slash = strchr(part, '/');
		size_t n = slash != NULL ? (size_t)(slash - part) : strlen(part);

		if (n == 0 && (slash != NULL || part == path + 1))
			return "an empty part ('//')";
		if ((n == 1 && part[0] == '.') || (n == 2 && part[0] == '.' && part[1] == '.'))
			return "a '.' or '..' part";
		if (slash == NULL)
			return NULL;
		part = slash + 1;
	}
}
