/* SPDX-License-Identifier: MIT */
/* Frame codec: 4-byte big-endian length, then one protobuf Envelope. */
#ifndef IOCURVE_FRAME_H
#define IOCURVE_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>

#include "error.h"
#include "iocurve.pb-c.h"

#define FRAME_HEADER      4u
#define FRAME_MAX_DEFAULT (16u << 20)
/* The range --max-frame takes, on the agent and on serve. */
#define FRAME_MAX_LOWEST  1024u
#define FRAME_MAX_HIGHEST (1u << 30)
/* Unpacking a frame may allocate its length plus this much (frame.c says why). */
#define FRAME_UNPACK_SLACK (1u << 20)

/* Append one frame holding env to out. Returns 0, or -1 when env packs larger than max. */
int frame_write(struct evbuffer *out, const Iocurve__Envelope *env, size_t max);

/*
 * Take one frame from the front of in. Returns 1 and sets *env (free with
 * frame_free), 0 when the whole frame has not arrived yet, -1 when the stream is
 * bad: a length over max (checked from the header alone, before buffering the
 * body), a body that does not unpack as an Envelope with a body set, or one that
 * would take more than its length plus FRAME_UNPACK_SLACK bytes unpacked.
 */
int frame_read(struct evbuffer *in, size_t max, Iocurve__Envelope **env, struct error *err);
/*
 * The same from a peer trusted with more memory: unpacking may take times x the
 * frame's length plus FRAME_UNPACK_SLACK (the CLI reading its own daemon's listings).
 */
int frame_read_trusted(struct evbuffer *in, size_t max, unsigned times, Iocurve__Envelope **env,
                       struct error *err);
/*
 * The same from avail bytes at buf: 1 with *env and *used (the frame's bytes, header
 * included), 0 when the frame is not whole yet (*used 0), -1 on a bad stream. A
 * header over max is refused from its 4 bytes alone.
 */
int frame_decode(const uint8_t *buf, size_t avail, size_t max, unsigned times, size_t *used,
                 Iocurve__Envelope **env, struct error *err);
void frame_free(Iocurve__Envelope *env);
/* Bytes the last frame_read's unpacking allocated (its peak: nothing is freed midway). */
size_t frame_unpack_bytes(void);

/* "Hello", "IntervalReport", ...: for logs. */
const char *frame_body_name(const Iocurve__Envelope *env);
/* The same for a body's field number ("interval_report" for 23). */
const char *frame_body_case_name(unsigned body_case);

#endif
