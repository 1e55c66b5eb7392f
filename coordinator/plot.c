/* SPDX-License-Identifier: MIT */
#include "plot.h"
