/* SPDX-License-Identifier: MIT */
#include "datagen.h"
