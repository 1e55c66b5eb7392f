/* SPDX-License-Identifier: MIT */
/* The sim engine: a simulated device (placeholder until written). */
#include "engine.h"
