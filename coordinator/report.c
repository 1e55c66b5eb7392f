/* SPDX-License-Identifier: MIT */
#include "report.h"
