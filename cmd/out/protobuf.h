/* A minimal protocol-buffers encoder for writing pprof profiles: varints, length-
 * delimited fields and packed repeated integers, appended to a growable buffer. */
#ifndef LF_PROTOBUF_H
#define LF_PROTOBUF_H
#include <stddef.h>
#include <stdint.h>

struct pbuf { uint8_t *b; size_t len, cap; };

void pb_init(struct pbuf *p);
void pb_free(struct pbuf *p);
void pb_reset(struct pbuf *p);
void pb_varint(struct pbuf *p, uint64_t v);
/* Field `num` as a varint; proto3 omits zero values, so these do too. */
void pb_uint(struct pbuf *p, uint32_t num, uint64_t v);
void pb_int(struct pbuf *p, uint32_t num, int64_t v);
/* Just the tag and length of a length-delimited field whose bytes follow elsewhere. */
void pb_len_prefix(struct pbuf *p, uint32_t num, size_t len);
/* Field `num` as length-delimited bytes (strings, nested messages, packed arrays). */
void pb_bytes(struct pbuf *p, uint32_t num, const void *data, size_t len);
void pb_msg(struct pbuf *p, uint32_t num, const struct pbuf *msg);
#endif
