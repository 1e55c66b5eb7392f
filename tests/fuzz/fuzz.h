/* SPDX-License-Identifier: MIT */
/* One parser per fuzz target: libFuzzer's entry point, also driven by replay.c. */
#ifndef IOCURVE_FUZZ_H
#define IOCURVE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
