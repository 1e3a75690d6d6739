/* The SVG writer: a static picture that any viewer draws (frames as rect + text with
 * a <title> tooltip), plus the embedded script and style that make it interactive.
 * Every piece of text from input or options goes through text_xml. Output goes through
 * a buffer (outbuf.h): a frame is a dozen small pieces, too many for stdio calls. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "assets.h"
#include "diff.h"
#include "kind.h"
#include "layout.h"
#include "outbuf.h"
#include "text.h"

#define FRAME_H    16
#define FONT_SIZE  12
#define FONT_WIDTH 0.59   /* average glyph width per font size, as flamegraph.pl estimates */
#define HEAD_H     74     /* title, subtitle, legend */
#define FOOT_H     30     /* details line */
#define SVG_BUFFER (64u << 10)

void flame_opts_default(struct flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->countname = "samples";
	o->width = 1200;
	o->minwidth = 0.1;
}

struct svg {
	struct outbuf *out;
	FILE *file;              /* behind out: diff.h's pieces write here, after a flush */
	const struct flame_opts *o;
	const struct layout *l;
	int width, height;
};

static void put_str(struct outbuf *out, const char *s)
{
	text_xml(out, s, strlen(s));
}

/* For the few formatted pieces of the header and legend. */
static void put_fmt(struct outbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put_fmt(struct outbuf *out, const char *fmt, ...)
{
	char buf[512], *p = buf;
	va_list ap, again;
	va_start(ap, fmt);
	va_copy(again, ap);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf) && (p = malloc((size_t)n + 1)))
		vsnprintf(p, (size_t)n + 1, fmt, again);
	va_end(again);
	va_end(ap);
	if (n > 0 && p)
		outbuf_write(out, p, (size_t)n);
	if (p != buf)
		free(p);
}

/* CDATA cannot contain "]]>": split it across two sections where it occurs. */
static void put_cdata(struct outbuf *out, const char *s)
{
	outbuf_puts(out, "<![CDATA[\n");
	for (const char *end; (end = strstr(s, "]]>")); s = end + 2) {
		outbuf_write(out, s, (size_t)(end - s) + 2);
		outbuf_puts(out, "]]><![CDATA[");
	}
	outbuf_puts(out, s);
	outbuf_puts(out, "\n]]>");
}

/* 1234567 -> "1,234,567" */
static void put_count(struct outbuf *out, uint64_t v)
{
	char digits[20], s[27];
	int n = 0, k = 0;
	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (int i = n; i--;) {
		s[k++] = digits[i];
		if (i && i % 3 == 0)
			s[k++] = ',';
	}
	outbuf_write(out, s, (size_t)k);
}

/* Frame label cut to what fits in W pixels, flamegraph.pl style ("longna.."). */
static void put_fitted(struct outbuf *out, const char *name, size_t len, double w)
{
	double fit = (w - 6) / (FONT_SIZE * FONT_WIDTH);
	if (fit < 3)
		return;
	size_t chars = (size_t)fit;
	if (text_chars(name, len) <= chars) {
		text_xml(out, name, len);
		return;
	}
	text_xml(out, name, text_prefix(name, len, chars - 2));
	outbuf_write(out, "..", 2);
}

static double frame_y(const struct svg *s, uint32_t depth)
{
	if (s->o->inverted)
		return HEAD_H + (double)depth * FRAME_H;
	return s->height - FOOT_H - (double)(depth + 1) * FRAME_H;
}

#define PUT(out, lit) outbuf_write(out, lit, sizeof(lit) - 1)

/* A frame's kind by the grammar of the profile drawn: a heap snapshot's, or a CPU profile's. */
static enum frame_kind frame_kind(const struct svg *s, const struct lframe *lf)
{
	const struct fnode *x = lf->node;
	return s->o->heap ? heap_kind_of(x->name, x->len, (int)lf->depth - 1) : kind_of(x->name, x->len);
}

static void put_frame(const struct svg *s, size_t i)
{
	const struct lframe *lf = &s->l->frames[i];
	const struct fnode *x = lf->node;
	struct outbuf *out = s->out;
	double px = layout_x(s->l, i), w = layout_w(s->l, i), y = frame_y(s, lf->depth);
	const struct flame_diff *d = s->o->diff;
	char color[8];
	if (d)
		diff_color(d, x, color);
	else
		kind_color(i == 0 ? KIND_MARKER : frame_kind(s, lf), x->hash, color);
	PUT(out, "<g data-o=\"");
	outbuf_u64(out, lf->offset);
	outbuf_putc(out, '"');
	if (d) {
		outbuf_flush(out);
		diff_put_attrs(d, x, s->file);
	}
	PUT(out, "><title>");
	text_xml(out, x->name, x->len);
	outbuf_putc(out, '\n');
	put_count(out, x->total);
	outbuf_putc(out, ' ');
	put_str(out, s->o->countname);
	PUT(out, ", ");
	outbuf_fixed(out, 100.0 * (double)x->total / (double)s->l->total, 2);
	outbuf_putc(out, '%');
	if (d) {
		outbuf_flush(out);
		diff_put_title(d, x, s->file);
	}
	PUT(out, "</title><rect x=\"");
	outbuf_fixed(out, px, 2);
	PUT(out, "\" y=\"");
	outbuf_fixed(out, y, 0);
	PUT(out, "\" width=\"");
	outbuf_fixed(out, w, 2);
	PUT(out, "\" height=\"");
	outbuf_u64(out, FRAME_H - 1);
	PUT(out, "\" fill=\"");
	outbuf_write(out, color, strlen(color));
	PUT(out, "\"/>");
	if ((w - 6) / (FONT_SIZE * FONT_WIDTH) >= 3) {
		PUT(out, "<text x=\"");
		outbuf_fixed(out, px + 3, 2);
		PUT(out, "\" y=\"");
		outbuf_fixed(out, y + FRAME_H - 4.5, 0);
		PUT(out, "\">");
		put_fitted(out, x->name, x->len, w);
		PUT(out, "</text>");
	}
	PUT(out, "</g>\n");
}

static void put_legend(const struct svg *s)
{
	int present[KIND_COUNT] = { 0 };
	double x = LAYOUT_XPAD, y = HEAD_H - 20;
	if (s->o->diff) {
		outbuf_flush(s->out);
		diff_put_legend(s->o->diff, s->file, x, y);
		return;
	}
	for (size_t i = 1; i < s->l->n; i++)
		present[frame_kind(s, &s->l->frames[i])] = 1;
	outbuf_puts(s->out, "<g id=\"legend\">");
	for (int k = s->o->heap ? KIND_CPU_COUNT : 0; k < (s->o->heap ? KIND_COUNT : KIND_CPU_COUNT); k++) {
		if ((k == KIND_MARKER || k == KIND_OFFCPU || k == KIND_HEAP_VM) && !present[k])
			continue;
		char color[8];
		const char *label = kind_label((enum frame_kind)k);
		kind_color((enum frame_kind)k, 0x808080, color);
		put_fmt(s->out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"%.0f\">%s</text>", x, y, color, x + 16, y + 10, label);
		x += 16 + strlen(label) * FONT_SIZE * FONT_WIDTH + 18;
	}
	outbuf_puts(s->out, "</g>\n");
}

static void put_header(const struct svg *s)
{
	const struct flame_opts *o = s->o;
	struct outbuf *out = s->out;
	const char *title = o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph";
	put_fmt(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" data-count=\"", s->width, s->height, s->width, s->height);
	put_str(out, o->countname);
	outbuf_puts(out, "\">\n<style type=\"text/css\">");
	put_cdata(out, lf_flame_css);
	outbuf_puts(out, "</style>\n<rect class=\"bg\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\"/>\n");
	put_fmt(out, "<text id=\"title\" x=\"%d\" y=\"24\">", s->width / 2);
	put_str(out, title);
	outbuf_puts(out, "</text>\n");
	if (o->subtitle && *o->subtitle) {
		put_fmt(out, "<text id=\"subtitle\" x=\"%d\" y=\"42\">", s->width / 2);
		put_str(out, o->subtitle);
		outbuf_puts(out, "</text>\n");
	}
	outbuf_puts(out, "<text id=\"unzoom\" class=\"btn hide\" x=\"10\" y=\"24\">Reset Zoom</text>\n");
	put_fmt(out, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">Search</text>\n", s->width - 10);
	put_fmt(out, "<text id=\"ic\" class=\"btn\" x=\"%d\" y=\"24\"><title>case-insensitive search"
		"</title>ic</text>\n", s->width - 72);
	put_fmt(out, "<text id=\"details\" x=\"10\" y=\"%d\"> </text>\n", s->height - 10);
	put_fmt(out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", s->width - 10, s->height - 10);
}

static void put_frames(const struct svg *s)
{
	put_fmt(s->out, "<g id=\"frames\" data-fh=\"%d\" data-y0=\"%.0f\" data-dir=\"%d\" data-fs=\"%d\" "
		"data-fw=\"%.2f\" data-total=\"%" PRIu64 "\"", FRAME_H, frame_y(s, 0),
		s->o->inverted ? 1 : -1, FONT_SIZE, FONT_WIDTH, s->l->total);
	if (s->o->diff) {
		outbuf_flush(s->out);
		diff_put_frames_attrs(s->o->diff, s->file);
	}
	outbuf_puts(s->out, ">\n");
	for (size_t i = 0; i < s->l->n; i++)
		put_frame(s, i);
	outbuf_puts(s->out, "</g>\n");
}

int flame_write_svg(const struct flame *f, const struct flame_opts *o, FILE *out)
{
	struct flame_opts def;
	struct layout l;
	struct flame *rev = NULL;
	if (!f || !out)
		return -1;
	if (o)
		def = *o;
	else
		flame_opts_default(&def);
	if (!def.countname)
		def.countname = "samples";
	o = &def;
	char *buf = malloc(SVG_BUFFER);
	if (!buf)
		return -1;
	if (o->reverse && !(f = rev = flame_reversed(f))) {
		free(buf);
		return -1;
	}
	int rc = layout_build(f, o, &l);
	if (rc == 0) {
		struct outbuf ob;
		outbuf_init(&ob, out, buf, SVG_BUFFER);
		struct svg s = { &ob, out, o, &l, 0, 0 };
		s.width = (int)l.plot_width + 2 * LAYOUT_XPAD;
		s.height = HEAD_H + (int)(l.max_depth + 1) * FRAME_H + FOOT_H;
		put_header(&s);
		if (l.total) {
			put_legend(&s);
			put_frames(&s);
		} else {
			put_fmt(&ob, "<text id=\"empty\" x=\"%d\" y=\"%d\">No samples: the profile is empty</text>\n",
				s.width / 2, HEAD_H + 6);
		}
		outbuf_puts(&ob, "<script type=\"text/ecmascript\">");
		put_cdata(&ob, lf_flame_js);
		outbuf_puts(&ob, "</script>\n</svg>\n");
		outbuf_flush(&ob);
		layout_free(&l);
	}
	free(buf);
	flame_free(rev);
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	return rc;
}
