/* The one place where names from a profiled program are made safe for an output: a
 * replaced byte stays visible as \xHH text (ESC is "\x1b"), never silently dropped, so a
 * hostile name shows what it tried to do. Valid UTF-8 other than controls passes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "safe_name.h"

/* Length of the valid UTF-8 sequence at p that may be written as is, 0 when its first
 * byte must be escaped: overlong forms, surrogates, C1 controls (which some terminals
 * obey) and the bidirectional overrides that make text read differently from its bytes. */
static size_t utf8_ok(const unsigned char *p, size_t n)
{
	size_t len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3 :
		     p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
	if (!len || len > n)
		return 0;
	uint32_t cp = p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp <= 0x9f ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x2028 || cp == 0x2029)
		return 0;
	return len;
}

/* Start of a trailing " <digits>" (its space), or n when there is none: in a folded line
 * the last such group is the count. */
static size_t count_lookalike(const char *s, size_t n)
{
	size_t i = n;
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	return i < n && i > 0 && s[i - 1] == ' ' ? i - 1 : n;
}

static int must_escape(const unsigned char *u, size_t n, size_t at, size_t fake_count, enum safe_mode mode)
{
	unsigned char c = u[at];
	if (c < 0x20 || c == 0x7f)
		return 1;
	if (mode == SAFE_LUA_NAME && c == ' ' && at + 1 < n && u[at + 1] == '(')
		return 1;
	return mode != SAFE_TERMINAL && (c == ';' || at == fake_count);
}

size_t safe_name_write(char *dst, size_t cap, const char *s, size_t n, enum safe_mode mode)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t fake = mode == SAFE_FOLDED || mode == SAFE_LUA_NAME ? count_lookalike(s, n) : n, out = 0;
	for (size_t i = 0; i < n;) {
		size_t len = u[i] < 0x80 ? !must_escape(u, n, i, fake, mode) : utf8_ok(u + i, n - i);
		if (len) {
			if (out + len >= cap)
				break;
			char c = mode == SAFE_FOLDED_ROOT && s[i] == ' ' ? '_' : s[i];
			dst[out] = c;
			memcpy(dst + out + 1, s + i + 1, len - 1);
			out += len;
			i += len;
			continue;
		}
		if (out + 4 >= cap)
			break;
		dst[out++] = '\\';
		dst[out++] = 'x';
		dst[out++] = hex[u[i] >> 4];
		dst[out++] = hex[u[i] & 15];
		i++;
	}
	dst[out] = 0;
	return out;
}

/* A short name (a heap's labels, a million of them) is made safe on the stack. */
void sb_add_safe(struct sbuf *b, const char *s, size_t n, enum safe_mode mode)
{
	char small[4 * 128 + 1];
	size_t cap = 4 * n + 1;
	char *tmp = cap <= sizeof(small) ? small : xmalloc(cap);
	size_t len = safe_name_write(tmp, cap, s, n, mode);
	sb_add(b, tmp, len);
	if (tmp != small)
		free(tmp);
}

void safe_name_fix(char *s, size_t size, enum safe_mode mode)
{
	if (!size)
		return;
	size_t n = strnlen(s, size - 1);
	char *copy = xstrndup(s, n);
	safe_name_write(s, size, copy, n, mode);
	free(copy);
}
