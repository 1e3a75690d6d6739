/* UTF-8 cleaning (see text.h); XML escaping is in text_xml.c. */
#include <string.h>
#include "text.h"

#define REPLACEMENT 0xFFFDu

/* Characters XML 1.0 allows and a reader can see: no C0/C1 controls, no DEL, no
 * U+FFFE/U+FFFF (surrogates never decode). Tabs and newlines become U+FFFD too,
 * because a frame name spans one line. */
static int visible(uint32_t c)
{
	if (c < 0x20 || (c >= 0x7F && c < 0xA0))
		return 0;
	return c != 0xFFFE && c != 0xFFFF;
}

size_t text_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char b = s[0];
	size_t n;
	uint32_t c, min;
	if (b < 0x80) {
		*cp = visible(b) ? b : REPLACEMENT;
		return 1;
	}
	if (b >= 0xC2 && b <= 0xDF) { n = 2; c = b & 0x1F; min = 0x80; }
	else if (b >= 0xE0 && b <= 0xEF) { n = 3; c = b & 0x0F; min = 0x800; }
	else if (b >= 0xF0 && b <= 0xF4) { n = 4; c = b & 0x07; min = 0x10000; }
	else { *cp = REPLACEMENT; return 1; }
	if (n > len) { *cp = REPLACEMENT; return 1; }
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) { *cp = REPLACEMENT; return 1; }
		c = (c << 6) | (s[i] & 0x3F);
	}
	if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || !visible(c))
		c = REPLACEMENT;
	*cp = c;
	return n;
}

size_t text_encode(uint32_t c, char *o)
{
	if (c < 0x80) { o[0] = (char)c; return 1; }
	if (c < 0x800) { o[0] = (char)(0xC0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3F)); return 2; }
	if (c < 0x10000) {
		o[0] = (char)(0xE0 | c >> 12); o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | c >> 18); o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3F)); o[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

int text_is_plain(const char *s, size_t len)
{
	size_t i = 0;
	/* 8 bytes at a time: a top bit is set in LOW for a byte below 0x20, in HIGH for one
	 * above 0x7E; a borrow or carry only spreads from a byte that is flagged itself */
	for (; i + 8 <= len; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		uint64_t low = (w - 0x2020202020202020ull) & ~w;
		uint64_t high = (w + 0x0101010101010101ull) | w;
		if ((low | high) & 0x8080808080808080ull)
			return 0;
	}
	for (; i < len; i++) {
		unsigned char b = (unsigned char)s[i];
		if (b < 0x20 || b > 0x7E)
			return 0;
	}
	return 1;
}

size_t text_clean(const char *s, size_t len, char *out, size_t cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, o = 0;
	while (i < len) {
		uint32_t c;
		char buf[4];
		i += text_decode(u + i, len - i, &c);
		size_t n = text_encode(c, buf);
		if (o + n > cap)
			break;
		memcpy(out + o, buf, n);
		o += n;
	}
	return o;
}

size_t text_chars(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xC0) != 0x80;
	return n;
}

size_t text_prefix(const char *s, size_t len, size_t n)
{
	size_t i = 0, seen = 0;
	for (; i < len; i++) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (seen == n)
				break;
			seen++;
		}
	}
	return i;
}
