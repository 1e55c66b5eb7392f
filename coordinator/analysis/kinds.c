/* SPDX-License-Identifier: MIT */
/* Read and write apart: a mixed workload's figures per operation kind at one step. */
#include <stdio.h>

#include "kinds.h"
#include "units.h"

const char *kinds_name(enum kinds_kind k)
{
	return k == KINDS_READ ? "read" : "write";
}

struct kinds_fig kinds_of(const struct step_point *p, enum kinds_kind k)
{
	struct kinds_fig f = {0};
	bool r = k == KINDS_READ;

	f.ops_s = r ? p->kinds.read_ops_s : p->kinds.write_ops_s;
	f.known = p->kinds.known;
	if (!f.known)
		return f;
	f.mib_s = r ? p->kinds.read_mib_s : p->kinds.write_mib_s;
	f.mean_ns = r ? p->kinds.read_mean_ns : p->kinds.write_mean_ns;
	f.p99_ns = r ? p->kinds.read_p99_ns : p->kinds.write_p99_ns;
	return f;
}

void kinds_text(const struct kinds_fig *f, char *buf, size_t len)
{
	char mean[32], p99[32];

	if (!f->known) {
		snprintf(buf, len,
		         "%.1f ops/s (MiB/s and latency not measured: an agent without read and "
		         "write apart)",
		         f->ops_s);
		return;
	}
	units_format_duration((uint64_t)(f->mean_ns + 0.5), mean, sizeof(mean));
	units_format_duration(f->p99_ns, p99, sizeof(p99));
	snprintf(buf, len, "%.1f ops/s, %.3f MiB/s, mean %s, p99 %s", f->ops_s, f->mib_s, mean,
	         p99);
}
