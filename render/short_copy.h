/* Copies of a few dozen bytes (a label, a stack's frames) done inline: musl's memcpy on
 * x86-64 runs rep movsq, with byte moves around it, for every size, which costs more than the
 * copy itself at these sizes, and a heap snapshot makes millions of them. */
#ifndef LF_SHORT_COPY_H
#define LF_SHORT_COPY_H
#include <stddef.h>
#include <string.h>

static inline void short_copy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	if (n > 128) {
		memcpy(d, s, n);
		return;
	}
	if (n >= 8) {   /* words, the last one overlapping the one before */
		for (size_t i = 0; i + 8 < n; i += 8)
			__builtin_memcpy(d + i, s + i, 8);
		__builtin_memcpy(d + n - 8, s + n - 8, 8);
		return;
	}
	if (n >= 4) {
		__builtin_memcpy(d, s, 4);
		__builtin_memcpy(d + n - 4, s + n - 4, 4);
		return;
	}
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}
#endif
