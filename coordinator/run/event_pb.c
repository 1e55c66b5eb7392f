/* SPDX-License-Identifier: MIT */
/* struct event <-> protobuf Event, through the field table and the message descriptors. */
#include <stdlib.h>
#include <string.h>

#include "event_pb.h"
#include "xalloc.h"

/* The protobuf type a member of each event_type is carried as. */
static const ProtobufCType event_pb_types[] = {
    [EVENT_T_U32] = PROTOBUF_C_TYPE_UINT32, [EVENT_T_I32] = PROTOBUF_C_TYPE_INT32,
    [EVENT_T_U64] = PROTOBUF_C_TYPE_UINT64, [EVENT_T_DOUBLE] = PROTOBUF_C_TYPE_DOUBLE,
    [EVENT_T_BOOL] = PROTOBUF_C_TYPE_BOOL,  [EVENT_T_STR] = PROTOBUF_C_TYPE_STRING,
    [EVENT_T_ENUM] = PROTOBUF_C_TYPE_ENUM,
};

/* The Event's oneof member for kind k: its field is named as the kind. */
static const ProtobufCFieldDescriptor *event_pb_body(enum event_kind k)
{
	return protobuf_c_message_descriptor_get_field_by_name(&iocurve__event__descriptor,
	                                                       event_kind_name(k));
}

/* The protobuf field of member f in kind k's message, when its type matches. */
static const ProtobufCFieldDescriptor *event_pb_field(const ProtobufCFieldDescriptor *body,
                                                      const struct event_field *f)
{
	const ProtobufCFieldDescriptor *pf =
	    protobuf_c_message_descriptor_get_field_by_name(body->descriptor, f->key);

	return pf != NULL && pf->type == event_pb_types[f->type] &&
	               pf->label == PROTOBUF_C_LABEL_NONE
	           ? pf
	           : NULL;
}

/* Copy one member between struct event (ev) and a protobuf message (pb), either way. */
static void event_pb_move(const struct event_field *f, const void *from, void *to, bool to_pb)
{
	switch (f->type) {
	case EVENT_T_U32:
	case EVENT_T_I32:
	case EVENT_T_ENUM:
		memcpy(to, from, sizeof(uint32_t));
		break;
	case EVENT_T_U64:
		memcpy(to, from, sizeof(uint64_t));
		break;
	case EVENT_T_DOUBLE:
		memcpy(to, from, sizeof(double));
		break;
	case EVENT_T_BOOL: /* bool in the event, protobuf_c_boolean (an int) in the message */
		if (to_pb)
			*(protobuf_c_boolean *)to = *(const bool *)from;
		else
			*(bool *)to = *(const protobuf_c_boolean *)from != 0;
		break;
	case EVENT_T_STR: {
		const char *s = *(const char *const *)from;

		if (to_pb)
			*(const char **)to = s != NULL ? s : "";
		else
			*(const char **)to = xstrdup(s != NULL ? s : "");
		break;
	}
	}
}

Iocurve__Event *event_pb_new(const struct event *e, uint32_t id)
{
	Iocurve__Event *pb = xmalloc(sizeof(*pb));
	const ProtobufCFieldDescriptor *body = event_pb_body(e->kind);
	ProtobufCMessage *msg;
	size_t n;
	const struct event_field *f = event_fields(e->kind, &n);

	iocurve__event__init(pb);
	pb->id = id;
	if (body == NULL)
		return pb;
	msg = xmalloc(((const ProtobufCMessageDescriptor *)body->descriptor)->sizeof_message);
	protobuf_c_message_init(body->descriptor, msg);
	for (size_t i = 0; i < n; i++) {
		const ProtobufCFieldDescriptor *pf = event_pb_field(body, &f[i]);

		if (pf != NULL)
			event_pb_move(&f[i], (const char *)e + f[i].off, (char *)msg + pf->offset,
			              true);
	}
	*(uint32_t *)((char *)pb + body->quantifier_offset) = body->id;
	*(ProtobufCMessage **)((char *)pb + body->offset) = msg;
	return pb;
}

void event_pb_free(Iocurve__Event *pb)
{
	for (int k = 0; pb != NULL && k < EVENT_KIND_N; k++) {
		const ProtobufCFieldDescriptor *body = event_pb_body((enum event_kind)k);

		if (*(const uint32_t *)((const char *)pb + body->quantifier_offset) == body->id)
			free(*(ProtobufCMessage **)((char *)pb + body->offset));
	}
	free(pb);
}

int event_from_pb(struct event *e, const Iocurve__Event *pb, struct error *err)
{
	memset(e, 0, sizeof(*e));
	for (int k = 0; k < EVENT_KIND_N; k++) {
		const ProtobufCFieldDescriptor *body = event_pb_body((enum event_kind)k);
		const char *msg;
		size_t n;
		const struct event_field *f;

		if (*(const uint32_t *)((const char *)pb + body->quantifier_offset) != body->id)
			continue;
		if ((msg = *(const char *const *)((const char *)pb + body->offset)) == NULL)
			break;
		e->kind = (enum event_kind)k;
		f = event_fields(e->kind, &n);
		for (size_t i = 0; i < n; i++) {
			const ProtobufCFieldDescriptor *pf = event_pb_field(body, &f[i]);

			if (pf != NULL)
				event_pb_move(&f[i], msg + pf->offset, (char *)e + f[i].off, false);
			else if (f[i].type == EVENT_T_STR)
				*(const char **)((char *)e + f[i].off) = xstrdup("");
		}
		return 0;
	}
	error_set(err, "campaign %u: an event of a kind this version does not know", pb->id);
	return -1;
}

int event_pb_check(struct error *err)
{
	for (int k = 0; k < EVENT_KIND_N; k++) {
		const ProtobufCFieldDescriptor *body = event_pb_body((enum event_kind)k);
		size_t n;
		const struct event_field *f = event_fields((enum event_kind)k, &n);

		if (body == NULL || body->type != PROTOBUF_C_TYPE_MESSAGE) {
			error_set(err, "Event has no message member %s", event_kind_name(k));
			return -1;
		}
		for (size_t i = 0; i < n; i++)
			if (event_pb_field(body, &f[i]) == NULL) {
				error_set(
				    err, "%s: no field %s of a matching type in %s",
				    event_kind_name(k), f[i].key,
				    ((const ProtobufCMessageDescriptor *)body->descriptor)->name);
				return -1;
			}
	}
	return 0;
}
