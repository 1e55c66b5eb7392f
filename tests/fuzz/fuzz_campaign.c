/* SPDX-License-Identifier: MIT */
/* Fuzz target: the YAML campaign loader, from bytes to a checked campaign or an error. */
#include "campaign.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct campaign *c = NULL;
	struct error err;

	if (campaign_parse((const char *)data, size, "fuzz.yaml", &c, &err) == 0)
		campaign_free(c);
	return 0;
}
