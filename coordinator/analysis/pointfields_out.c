/* SPDX-License-Identifier: MIT */
/* A field's value read from a point, formatted, and written as CSV (pointfields.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "background.h"
#include "bgfig.h"
#include "pointfields.h"
#include "judged.h"
#include "verdict.h"

struct pfield_val pfield_value(const struct pfield *f, const struct step_point *p,
                               const struct judged_point *jp)
{
	struct pfield_val v = {0};
	const char *at = (const char *)p + f->off;

	if (f->judged && jp == NULL) {
		v.none = true;
		return v;
	}
	/* A background's figure: none without one. */
	if (f->apart == PF_APART_BACKGROUND) {
		if (!p->bg.on) {
			v.none = true;
			return v;
		}
	}
	/* Sync writes: a workload that does not sync has none. */
	if (f->apart == PF_APART_SYNC && !p->sync.on) {
		v.none = true;
		return v;
	}
	/* Read and write apart: a pure workload has none; not measured has none. */
	if (f->apart != PF_APART_NONE && f->apart != PF_APART_SYNC && f->apart != PF_APART_KERNEL &&
	    f->apart != PF_APART_BACKGROUND && f->apart != PF_APART_REPLAY &&
	    (!p->mixed || (f->apart == PF_APART_MEASURED && !p->kinds.known))) {
		v.none = true;
		return v;
	}
	switch (f->member) {
	case PF_M_GET:
		if (f->get != NULL)
			f->get(p, jp, &v);
		if (f->kind != PF_REAL)
			v.raw = (double)v.u;
		break;
	case PF_M_U32:
		v.u = *(const uint32_t *)at;
		v.raw = (double)v.u;
		break;
	case PF_M_U64:
		v.u = *(const uint64_t *)at;
		v.raw = (double)v.u;
		break;
	case PF_M_DOUBLE:
		v.raw = *(const double *)at;
		break;
	case PF_M_BOOL:
		v.b = *(const bool *)at;
		break;
	}
	if (f->kind == PF_BOOL) {
		v.u = v.b;
		v.raw = v.b;
	}
	v.d = f->div != 0 ? v.raw / f->div : v.raw;
	return v;
}

size_t pfield_format(const struct pfield *f, const struct step_point *p,
                     const struct judged_point *jp, char *buf, size_t len)
{
	struct pfield_val v = pfield_value(f, p, jp);
	int n = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	if (v.none)
		return 0;
	switch (f->kind) {
	case PF_UINT:
		n = snprintf(buf, len, "%" PRIu64, v.u);
		break;
	case PF_REAL: {
		/* rounded as the JSON files round it (stepjson_num), then printed */
		double scale = pow(10, f->decimals);

		n = snprintf(buf, len, "%.*f", (int)f->decimals, round(v.d * scale) / scale);
		break;
	}
	case PF_BOOL:
		n = snprintf(buf, len, "%s", v.b ? "true" : "false");
		break;
	case PF_TEXT:
		if (f->text != NULL)
			f->text(p, jp, buf, len);
		return strlen(buf);
	case PF_PCTS:
	case PF_ERROR:
		break;
	}
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

void pfield_csv_header(FILE *f, unsigned out, unsigned show)
{
	const struct pfield *list[PFIELD_MAX];
	size_t n = pfield_list_kinds(out, show, list);

	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "",
		        out == PF_CURVE ? list[i]->name : pfield_key(list[i]));
}

/*
 * One CSV cell: as it is, or quoted (RFC 4180: in double quotes, a quote doubled) when
 * it holds a comma, a quote or a line break, as the background's verdict does ("fell
 * behind: ... (44%), operations missed"). No number and no other words need it, so
 * their cells keep the bytes they always had.
 */
static void pfield_csv_cell(FILE *f, const char *cell)
{
	if (strpbrk(cell, ",\"\r\n") == NULL) {
		fputs(cell, f);
		return;
	}
	fputc('"', f);
	for (const char *c = cell; *c; c++) {
		if (*c == '"')
			fputc('"', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

void pfield_csv_row(FILE *f, unsigned out, unsigned show, const struct step_point *p,
                    const struct judged_point *jp)
{
	const struct pfield *list[PFIELD_MAX];
	size_t n = pfield_list_kinds(out, show, list);
	char cell[PFIELD_TEXT_MAX];

	for (size_t i = 0; i < n; i++) {
		pfield_format(list[i], p, jp, cell, sizeof(cell));
		fputs(i ? "," : "", f);
		pfield_csv_cell(f, cell);
	}
}
