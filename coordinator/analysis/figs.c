/* SPDX-License-Identifier: MIT */
/* The step's extractors, one row per concern (figs.h). */
#include "figs.h"

static void (*const figs_table[])(const struct figs_in *in, struct step_point *pt) = {
    figs_kinds,  /* read and write apart */
    figs_parts,  /* a mix's parts */
    figs_sync,   /* sync writes */
    figs_kernel, /* the kernel's view of the devices */
    figs_verify, /* verify's mismatches, with the errors */
    figs_client, /* the client's health, last: it reads the rest */
};

void figs_fill(const struct figs_in *in, struct step_point *pt)
{
	for (size_t i = 0; i < sizeof(figs_table) / sizeof(figs_table[0]); i++)
		figs_table[i](in, pt);
}
