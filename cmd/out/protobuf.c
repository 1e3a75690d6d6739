/* A minimal protocol-buffers encoder for writing pprof profiles: varints, length-
 * delimited fields and packed repeated integers, appended to a growable buffer. */
#include <stdlib.h>
#include <string.h>

#include "protobuf.h"
#include "util.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void pb_init(struct pbuf *p)
{
	memset(p, 0, sizeof(*p));
}

void pb_free(struct pbuf *p)
{
	free(p->b);
	pb_init(p);
}

void pb_reset(struct pbuf *p)
{
	p->len = 0;
}

static void reserve(struct pbuf *p, size_t n)
{
	if (p->len + n <= p->cap)
		return;
	size_t cap = p->cap ? p->cap * 2 : 256;
	while (cap < p->len + n)
		cap *= 2;
	p->b = xrealloc(p->b, cap);
	p->cap = cap;
}

void pb_varint(struct pbuf *p, uint64_t v)
{
	reserve(p, 10);
	while (v >= 0x80) {
		p->b[p->len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->len++] = (uint8_t)v;
}

static void tag(struct pbuf *p, uint32_t num, unsigned wire)
{
	pb_varint(p, (uint64_t)num << 3 | wire);
}

void pb_uint(struct pbuf *p, uint32_t num, uint64_t v)
{
	if (!v)
		return;
	tag(p, num, WIRE_VARINT);
	pb_varint(p, v);
}

/* int64 fields are plain varints: negative values take ten bytes (two's complement). */
void pb_int(struct pbuf *p, uint32_t num, int64_t v)
{
	pb_uint(p, num, (uint64_t)v);
}

void pb_len_prefix(struct pbuf *p, uint32_t num, size_t len)
{
	tag(p, num, WIRE_LEN);
	pb_varint(p, len);
}

void pb_bytes(struct pbuf *p, uint32_t num, const void *data, size_t len)
{
	pb_len_prefix(p, num, len);
	reserve(p, len);
	if (len)
		memcpy(p->b + p->len, data, len);
	p->len += len;
}

void pb_msg(struct pbuf *p, uint32_t num, const struct pbuf *msg)
{
	pb_bytes(p, num, msg->b, msg->len);
}
