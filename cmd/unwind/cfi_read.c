/* Bounds-checked readers for CFI bytes: fixed-size little-endian integers, LEB128 and the
 * DW_EH_PE pointer encodings of .eh_frame. Nothing here ever reads outside [p, end). */
#include <string.h>
#include "cfi_internal.h"

static bool take(struct cfi_cur *c, size_t n, const uint8_t **at)
{
	if (c->err || (size_t)(c->end - c->p) < n) {
		c->err = true;
		return false;
	}
	*at = c->p;
	c->p += n;
	return true;
}

/* Little-endian load of n <= 8 bytes, whatever the host's byte order. */
static uint64_t load_le(const uint8_t *b, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i > 0; i--)
		v = (v << 8) | b[i - 1];
	return v;
}

bool cur_u8(struct cfi_cur *c, uint8_t *v)
{
	const uint8_t *b;
	if (!take(c, 1, &b))
		return false;
	*v = b[0];
	return true;
}

bool cur_u16(struct cfi_cur *c, uint16_t *v)
{
	const uint8_t *b;
	if (!take(c, 2, &b))
		return false;
	*v = (uint16_t)load_le(b, 2);
	return true;
}

bool cur_u32(struct cfi_cur *c, uint32_t *v)
{
	const uint8_t *b;
	if (!take(c, 4, &b))
		return false;
	*v = (uint32_t)load_le(b, 4);
	return true;
}

bool cur_u64(struct cfi_cur *c, uint64_t *v)
{
	const uint8_t *b;
	if (!take(c, 8, &b))
		return false;
	*v = load_le(b, 8);
	return true;
}

bool cur_skip(struct cfi_cur *c, uint64_t n)
{
	const uint8_t *b;
	if (n > (uint64_t)(c->end - c->p)) {
		c->err = true;
		return false;
	}
	return take(c, (size_t)n, &b);
}

/* At most 10 bytes; bits beyond 64 are an error, so a long run of 0x80 cannot spin or wrap. */
static bool leb(struct cfi_cur *c, uint64_t *v, unsigned *shift_out, uint8_t *last)
{
	uint64_t r = 0;
	unsigned shift = 0;
	uint8_t b;
	for (int i = 0; i < 10; i++) {
		if (!cur_u8(c, &b))
			return false;
		uint64_t bits = b & 0x7f;
		if (shift == 63 && bits > 1) {
			c->err = true;
			return false;
		}
		r |= bits << shift;
		shift += 7;
		if (!(b & 0x80)) {
			*v = r;
			*shift_out = shift;
			*last = b;
			return true;
		}
	}
	c->err = true;
	return false;
}

bool cur_uleb(struct cfi_cur *c, uint64_t *v)
{
	unsigned shift;
	uint8_t last;
	return leb(c, v, &shift, &last);
}

bool cur_sleb(struct cfi_cur *c, int64_t *v)
{
	uint64_t r;
	unsigned shift;
	uint8_t last;
	if (!leb(c, &r, &shift, &last))
		return false;
	if (shift < 64 && (last & 0x40))
		r |= ~(uint64_t)0 << shift;
	memcpy(v, &r, sizeof(*v));
	return true;
}

/* Value part of an encoding (low nibble), before the application (pcrel...) is added. */
static bool ptr_value(struct cfi_cur *c, uint8_t fmt, uint8_t addr_size, uint64_t *v,
		      bool *unsupported)
{
	uint16_t u16;
	uint32_t u32;
	int64_t s;
	switch (fmt) {
	case 0x00: /* absptr */
		if (addr_size == 4) {
			if (!cur_u32(c, &u32))
				return false;
			*v = u32;
			return true;
		}
		return cur_u64(c, v);
	case 0x01: return cur_uleb(c, v);
	case 0x02: if (!cur_u16(c, &u16)) return false; *v = u16; return true;
	case 0x03: if (!cur_u32(c, &u32)) return false; *v = u32; return true;
	case 0x04: case 0x0c: return cur_u64(c, v);
	case 0x09: if (!cur_sleb(c, &s)) return false; *v = (uint64_t)s; return true;
	case 0x0a: if (!cur_u16(c, &u16)) return false; *v = (uint64_t)(int64_t)(int16_t)u16; return true;
	case 0x0b: if (!cur_u32(c, &u32)) return false; *v = (uint64_t)(int64_t)(int32_t)u32; return true;
	default:
		*unsupported = true;
		return false;
	}
}

bool cur_ptr(struct cfi_cur *c, uint8_t enc, uint8_t addr_size, uint64_t *v, bool *unsupported)
{
	*unsupported = false;
	if (addr_size != 4)
		addr_size = 8;
	if (enc == DW_EH_PE_omit) {
		*unsupported = true;
		return false;
	}
	uint8_t app = enc & 0x70;
	if (app == 0x50) { /* aligned: absptr at the next address-size boundary */
		uint64_t at = c->sec_vaddr + (uint64_t)(c->p - c->sec);
		uint64_t pad = (addr_size - at % addr_size) % addr_size;
		if (!cur_skip(c, pad))
			return false;
		return ptr_value(c, 0x00, addr_size, v, unsupported);
	}
	uint64_t field = c->sec_vaddr + (uint64_t)(c->p - c->sec);
	if (!ptr_value(c, enc & 0x0f, addr_size, v, unsupported))
		return false;
	if (app == 0x10) {          /* pcrel: relative to the field itself */
		*v += field;
		return true;
	}
	if (app != 0x00) {          /* textrel, datarel, funcrel need bases we do not have */
		*unsupported = true;
		return false;
	}
	return true;
}
