/* SPDX-License-Identifier: MIT */
#include "pattern.h"
