/* XML escaping (see text.h). Everything that ends up in the SVG passes through text_xml,
 * so no input can open a tag, an entity or a CDATA end. Apart from text.c because it
 * writes to the SVG writer's buffer, which the tree's other users do without. */
#include "outbuf.h"
#include "text.h"

#define REPLACEMENT 0xFFFDu

/* Printable ASCII that XML takes as it is: the common case, copied in runs. */
static int xml_plain(unsigned char b)
{
	return b >= 0x20 && b <= 0x7E && b != '&' && b != '<' && b != '>' && b != '"' && b != '\'';
}

void text_xml(struct outbuf *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run = 0;   /* run: plain bytes not yet written, ending at i */
	while (i < len) {
		if (xml_plain(u[i])) {
			run++;
			i++;
			continue;
		}
		uint32_t c;
		size_t n = text_decode(u + i, len - i, &c);
		const char *esc = NULL;
		switch (c) {
		case '&': esc = "&amp;"; break;
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '"': esc = "&quot;"; break;
		case '\'': esc = "&#39;"; break;
		}
		int same = !esc && !(c == REPLACEMENT && !(n == 3 && u[i] == 0xEF && u[i + 1] == 0xBF && u[i + 2] == 0xBD));
		if (same) {
			run += n;
			i += n;
			continue;
		}
		if (run)
			outbuf_write(out, s + i - run, run);
		run = 0;
		if (esc) {
			outbuf_puts(out, esc);
		} else {
			char buf[4];
			outbuf_write(out, buf, text_encode(c, buf));
		}
		i += n;
	}
	if (run)
		outbuf_write(out, s + i - run, run);
}

void text_put_xml(FILE *out, const char *s, size_t len)
{
	char buf[1024];
	struct outbuf b;
	outbuf_init(&b, out, buf, sizeof(buf));
	text_xml(&b, s, len);
	outbuf_flush(&b);
}
