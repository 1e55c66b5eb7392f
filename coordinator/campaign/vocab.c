/* SPDX-License-Identifier: MIT */
/* IOmeter's and vdbench's words for workload settings, answered with iocurve's keys. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "vocab.h"

struct vocab_word {
	const char *word; /* vdbench: as spelled; IOmeter: letters and digits, lower case */
	const char *ours; /* iocurve's key, or NULL: where says it */
	const char *where;
};

/* vdbench's parameter names (its wd, rd and sd lines). */
static const struct vocab_word vocab_vdbench[] = {
    {"xfersize", "block_size", NULL},
    {"rdpct", "read_pct", NULL},
    {"threads", "queue_depth", "operations in flight per worker (workers x queue_depth in all)"},
    {"elapsed", "measure", NULL},
    {"seekpct", NULL,
     "seekpct=100 is rw: randread (randwrite, randrw), seekpct=0 rw: read (write, rw)"},
    {"iorate", NULL,
     "give the rates as load: {steps: [OPS, ...]} (iorate=max: steps: [max]; iorate=curve: "
     "load: {curve: [10%, ..., 100%]})"},
    {"forxfersize", NULL, "a list makes a matrix: block_size: [4KiB, 64KiB]"},
    {"forthreads", NULL, "a list makes a matrix: queue_depth: [1, 8, 32]"},
    {"forrdpct", NULL, "a list makes a matrix: read_pct: [0, 50, 100]"},
    {"forseekpct", NULL, "a list makes a matrix: rw: [read, randread]"},
    {"sd", NULL, "name the storage as the campaign's target: {path: DIR or DEVICE}"},
    {"lun", NULL, "name it as the campaign's target: {path: DIR or DEVICE}"},
    {"openflags", NULL, "direct: true is the default (o_direct); direct: false for the cache"},
    {"skew", NULL, "give each workload its own rates: load: {steps: [...]}"},
};

/* IOmeter's field names, in the form vocab_norm gives them. */
static const struct vocab_word vocab_iometer[] = {
    {"transferrequestsize", "block_size", NULL},
    {"percentread", "read_pct", NULL},
    {"percentreadwritedistribution", "read_pct", NULL},
    {"percentrandom", NULL,
     "100% random is rw: randread (randwrite, randrw), 0% rw: read (write, rw)"},
    {"percentrandomsequentialdistribution", NULL,
     "100% random is rw: randread (randwrite, randrw), 0% rw: read (write, rw)"},
    {"ofoutstandingios", "queue_depth",
     "operations in flight per worker (workers x queue_depth in all)"},
    {"outstandingios", "queue_depth",
     "operations in flight per worker (workers x queue_depth in all)"},
    {"rampuptime", "warmup", NULL},
    {"runtime", "measure", NULL},
    {"workers", "workers", "per agent"},
    {"alignioson", "align", NULL},
    {"maximumdisksize", NULL, "set it in the campaign's target: {size: SIZE}"},
    {"accessspecification", NULL, "each one is a workload: workloads: [{name: ..., rw: ...}]"},
    {"accessspecifications", NULL, "each one is a workload: workloads: [{name: ..., rw: ...}]"},
    {"burstlength", NULL,
     "iocurve paces operations with rates (load: {steps: [OPS, ...]}), not bursts"},
    {"transferdelay", NULL,
     "iocurve paces operations with rates (load: {steps: [OPS, ...]}), not delays"},
    {"cyclingoptions", NULL, "a list makes a matrix: queue_depth: [1, 2, 4, 8, 16, 32]"},
};

/* name in lower case, letters and digits only ("# of Outstanding I/Os": "ofoutstandingios"). */
static void vocab_norm(const char *name, char *out, size_t len)
{
	size_t o = 0;

	for (const char *p = name; *p != '\0' && o + 1 < len; p++)
		if (isalnum((unsigned char)*p))
			out[o++] = (char)tolower((unsigned char)*p);
	out[o] = '\0';
}

static void vocab_say(const char *name, const char *tool, const struct vocab_word *w, char *out,
                      size_t len)
{
	if (w->ours != NULL)
		snprintf(out, len, "'%s' is %s's name: iocurve calls it '%s'%s%s", name, tool,
		         w->ours, w->where ? ", " : "", w->where ? w->where : "");
	else
		snprintf(out, len, "'%s' is %s's: %s", name, tool, w->where);
}

bool vocab_hint(const char *name, char *out, size_t len)
{
	char norm[128];

	for (size_t i = 0; i < sizeof(vocab_vdbench) / sizeof(vocab_vdbench[0]); i++)
		if (strcmp(vocab_vdbench[i].word, name) == 0) {
			vocab_say(name, "vdbench", &vocab_vdbench[i], out, len);
			return true;
		}
	/* IOmeter's words have spaces and capitals: an exact key "workers" is ours already */
	vocab_norm(name, norm, sizeof(norm));
	for (size_t i = 0; i < sizeof(vocab_iometer) / sizeof(vocab_iometer[0]); i++)
		if (strcmp(vocab_iometer[i].word, norm) == 0) {
			vocab_say(name, "IOmeter", &vocab_iometer[i], out, len);
			return true;
		}
	return false;
}
