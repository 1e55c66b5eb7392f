/* SPDX-License-Identifier: MIT */
/* verify: the blocks a step read that failed their header. */
#include <string.h>

#include "figs.h"
#include "hist.h"

/*
 * verify: a mismatch fails its step wherever it fell, so the point counts every
 * interval's, the warm-up's and those past the window too; their reads join the
 * errors (and name the first failure when the window had none).
 */
void figs_verify(const struct figs_in *in, struct step_point *pt)
{
	pt->mismatches = 0;
	for (uint32_t i = 0; i < in->nintervals; i++) {
		const struct agg_record *m = in->merged[i];

		if (m == NULL || m->agents == 0)
			continue;
		pt->mismatches += m->rec.mismatches;
		if (m->rec.mismatches == 0 || (!m->warmup && i >= in->win_from && i < in->win_to))
			continue;
		pt->errors += m->rec.errors;
		if (pt->err_errno != 0 || pt->err_cause[0] != '\0')
			continue;
		pt->err_errno = m->rec.err_errno;
		pt->err_offset = m->rec.err_offset;
		memcpy(pt->err_path, m->rec.err_path, sizeof(pt->err_path));
		memcpy(pt->err_cause, m->rec.err_cause, sizeof(pt->err_cause));
		memcpy(pt->err_agent, m->err_agent, sizeof(pt->err_agent));
	}
}
