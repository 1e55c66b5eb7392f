/* SPDX-License-Identifier: MIT */
/* Size distributions, read from the campaign file. */
#include <stdio.h>
#include <string.h>

#include "sizeparse.h"
#include "units.h"

int sizeparse_dist(struct yamlnode_doc *y, const yaml_node_t *n, const char *label,
                   struct mix_sizes *s, uint32_t *block_size)
{
	uint32_t sum = 0;
	size_t count;

	if (n->type != YAML_MAPPING_NODE ||
	    (count = (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start)) == 0) {
		yamlnode_expected(y, n, label,
		                  "a size or a distribution such as {4KiB: 60, 64KiB: 40}");
		return -1;
	}
	if (count > MIX_SIZES_MAX) {
		yamlnode_error(y, n, "%s: %zu sizes; a distribution takes at most %d", label, count,
		               MIX_SIZES_MAX);
		return -1;
	}
	s->n = 0;
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yamlnode_get(y, p->key), *v = yamlnode_get(y, p->value);
		uint64_t bytes;
		uint32_t pct;

		if (yamlnode_size(y, k, label, &bytes) < 0)
			return -1;
		if (bytes < 512 || bytes > (16u << 20) || bytes % 512 != 0) {
			yamlnode_expected(y, k, label, "a multiple of 512B up to 16MiB");
			return -1;
		}
		for (uint32_t i = 0; i < s->n; i++)
			if (s->s[i].bytes == bytes) {
				yamlnode_error(y, k, "%s: size '%s' is given twice", label,
				               (const char *)k->data.scalar.value);
				return -1;
			}
		if (yamlnode_uint(y, v, label, 1, 100, &pct) < 0)
			return -1;
		s->s[s->n++] = (struct mix_size){(uint32_t)bytes, pct};
		sum += pct;
	}
	if (sum != 100) {
		yamlnode_error(y, n, "%s: the sizes' shares add up to %u, not 100", label, sum);
		return -1;
	}
	*block_size = mix_sizes_max(s);
	return 0;
}
