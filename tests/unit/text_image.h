/* Code bytes standing for a file's text at an address, read the way cfi_fill_padding reads
 * the code between two functions: shared by the CFI tests of each architecture. */
#ifndef LF_TEST_TEXT_IMAGE_H
#define LF_TEST_TEXT_IMAGE_H
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* len bytes at addr, nothing elsewhere */
struct text_image { const uint8_t *bytes; size_t len; uint64_t addr; };

static inline int read_text(void *ctx, uint64_t addr, uint8_t *buf, size_t n)
{
	const struct text_image *im = ctx;
	if (addr < im->addr || addr - im->addr > im->len || n > im->len - (addr - im->addr))
		return 0;
	memcpy(buf, im->bytes + (addr - im->addr), n);
	return 1;
}
#endif
