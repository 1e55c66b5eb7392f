/* SPDX-License-Identifier: MIT */
/* Target layout: create a worker's file and write it whole before any I/O. */
#ifndef IOCURVE_LAYOUT_H
#define IOCURVE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"

/*
 * Opens (creating when missing) path for I/O at size bytes, with O_DIRECT when
 * direct. Unless the file already carries the xattr user.iocurve.layout for
 * this size, writes every byte once (incompressible data), fsyncs and records
 * the xattr. Returns the open fd, or -1 with err naming the path and the reason
 * ("O_DIRECT not supported on this file system: set direct: false").
 * *written gets the bytes laid out (0 when skipped).
 */
int layout_open(const char *path, uint64_t size, bool direct, uint64_t *written, struct error *err);

#endif
