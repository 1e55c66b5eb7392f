/* SPDX-License-Identifier: MIT */
/* Escaping text for XML and HTML. */
#include <string.h>

#include "markup.h"

void markup_escape_n(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; s != NULL && i < n; i++) {
		unsigned char ch = (unsigned char)s[i];

		switch (ch) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		case '\0':
			fputs("&#xfffd;", f);
			break;
		default:
			fputc(ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r' ? '?' : ch, f);
		}
	}
}

void markup_escape(FILE *f, const char *s)
{
	markup_escape_n(f, s, s != NULL ? strlen(s) : 0);
}
