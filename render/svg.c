/* The SVG writer: a static picture that any viewer draws (frames as rect + text with
 * a <title> tooltip), plus the embedded script and style that make it interactive.
 * Every piece of text from input or options goes through text_put_xml. */
#include <inttypes.h>
#include <string.h>
#include "assets.h"
#include "diff.h"
#include "kind.h"
#include "layout.h"
#include "text.h"

#define FRAME_H    16
#define FONT_SIZE  12
#define FONT_WIDTH 0.59   /* average glyph width per font size, as flamegraph.pl estimates */
#define HEAD_H     74     /* title, subtitle, legend */
#define FOOT_H     30     /* details line */

void flame_opts_default(struct flame_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->countname = "samples";
	o->width = 1200;
	o->minwidth = 0.1;
}

struct svg {
	FILE *out;
	const struct flame_opts *o;
	const struct layout *l;
	int width, height;
};

static void put_str(FILE *out, const char *s)
{
	text_put_xml(out, s, strlen(s));
}

/* CDATA cannot contain "]]>": split it across two sections where it occurs. */
static void put_cdata(FILE *out, const char *s)
{
	fputs("<![CDATA[\n", out);
	for (const char *end; (end = strstr(s, "]]>")); s = end + 2) {
		fwrite(s, 1, (size_t)(end - s) + 2, out);
		fputs("]]><![CDATA[", out);
	}
	fputs(s, out);
	fputs("\n]]>", out);
}

/* 1234567 -> "1,234,567" */
static void put_count(FILE *out, uint64_t v)
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v);
	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			fputc(',', out);
		fputc(digits[i], out);
	}
}

/* Frame label cut to what fits in W pixels, flamegraph.pl style ("longna.."). */
static void put_fitted(FILE *out, const char *name, size_t len, double w)
{
	double fit = (w - 6) / (FONT_SIZE * FONT_WIDTH);
	if (fit < 3)
		return;
	size_t chars = (size_t)fit;
	if (text_chars(name, len) <= chars) {
		text_put_xml(out, name, len);
		return;
	}
	text_put_xml(out, name, text_prefix(name, len, chars - 2));
	fputs("..", out);
}

static double frame_y(const struct svg *s, uint32_t depth)
{
	if (s->o->inverted)
		return HEAD_H + (double)depth * FRAME_H;
	return s->height - FOOT_H - (double)(depth + 1) * FRAME_H;
}

static void put_frame(const struct svg *s, size_t i)
{
	const struct lframe *lf = &s->l->frames[i];
	const struct fnode *x = lf->node;
	double px = layout_x(s->l, i), w = layout_w(s->l, i), y = frame_y(s, lf->depth);
	const struct flame_diff *d = s->o->diff;
	char color[8];
	if (d)
		diff_color(d, x, color);
	else
		kind_color(i == 0 ? KIND_MARKER : kind_of(x->name, x->len), x->hash, color);
	fprintf(s->out, "<g data-o=\"%" PRIu64 "\"", lf->offset);
	if (d)
		diff_put_attrs(d, x, s->out);
	fputs("><title>", s->out);
	text_put_xml(s->out, x->name, x->len);
	fputc('\n', s->out);
	put_count(s->out, x->total);
	fputc(' ', s->out);
	put_str(s->out, s->o->countname);
	fprintf(s->out, ", %.2f%%", 100.0 * (double)x->total / (double)s->l->total);
	if (d)
		diff_put_title(d, x, s->out);
	fprintf(s->out, "</title><rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\" fill=\"%s\"/>",
		px, y, w, FRAME_H - 1, color);
	if ((w - 6) / (FONT_SIZE * FONT_WIDTH) >= 3) {
		fprintf(s->out, "<text x=\"%.2f\" y=\"%.0f\">", px + 3, y + FRAME_H - 4.5);
		put_fitted(s->out, x->name, x->len, w);
		fputs("</text>", s->out);
	}
	fputs("</g>\n", s->out);
}

static void put_legend(const struct svg *s)
{
	int present[KIND_COUNT] = { 0 };
	double x = LAYOUT_XPAD, y = HEAD_H - 20;
	if (s->o->diff) {
		diff_put_legend(s->o->diff, s->out, x, y);
		return;
	}
	for (size_t i = 1; i < s->l->n; i++)
		present[kind_of(s->l->frames[i].node->name, s->l->frames[i].node->len)] = 1;
	fputs("<g id=\"legend\">", s->out);
	for (int k = 0; k < KIND_COUNT; k++) {
		if (k == KIND_MARKER && !present[k])
			continue;
		char color[8];
		const char *label = kind_label((enum frame_kind)k);
		kind_color((enum frame_kind)k, 0x808080, color);
		fprintf(s->out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			"<text x=\"%.0f\" y=\"%.0f\">%s</text>", x, y, color, x + 16, y + 10, label);
		x += 16 + strlen(label) * FONT_SIZE * FONT_WIDTH + 18;
	}
	fputs("</g>\n", s->out);
}

static void put_header(const struct svg *s)
{
	const struct flame_opts *o = s->o;
	const char *title = o->title ? o->title : o->inverted ? "Icicle Graph" : "Flame Graph";
	fprintf(s->out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" data-count=\"", s->width, s->height, s->width, s->height);
	put_str(s->out, o->countname);
	fputs("\">\n<style type=\"text/css\">", s->out);
	put_cdata(s->out, lf_flame_css);
	fputs("</style>\n<rect class=\"bg\" x=\"0\" y=\"0\" width=\"100%\" height=\"100%\"/>\n", s->out);
	fprintf(s->out, "<text id=\"title\" x=\"%d\" y=\"24\">", s->width / 2);
	put_str(s->out, title);
	fputs("</text>\n", s->out);
	if (o->subtitle && *o->subtitle) {
		fprintf(s->out, "<text id=\"subtitle\" x=\"%d\" y=\"42\">", s->width / 2);
		put_str(s->out, o->subtitle);
		fputs("</text>\n", s->out);
	}
	fputs("<text id=\"unzoom\" class=\"btn hide\" x=\"10\" y=\"24\">Reset Zoom</text>\n", s->out);
	fprintf(s->out, "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"24\">Search</text>\n", s->width - 10);
	fprintf(s->out, "<text id=\"ic\" class=\"btn\" x=\"%d\" y=\"24\"><title>case-insensitive search"
		"</title>ic</text>\n", s->width - 72);
	fprintf(s->out, "<text id=\"details\" x=\"10\" y=\"%d\"> </text>\n", s->height - 10);
	fprintf(s->out, "<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n", s->width - 10, s->height - 10);
}

static void put_frames(const struct svg *s)
{
	fprintf(s->out, "<g id=\"frames\" data-fh=\"%d\" data-y0=\"%.0f\" data-dir=\"%d\" data-fs=\"%d\" "
		"data-fw=\"%.2f\" data-total=\"%" PRIu64 "\"", FRAME_H, frame_y(s, 0),
		s->o->inverted ? 1 : -1, FONT_SIZE, FONT_WIDTH, s->l->total);
	if (s->o->diff)
		diff_put_frames_attrs(s->o->diff, s->out);
	fputs(">\n", s->out);
	for (size_t i = 0; i < s->l->n; i++)
		put_frame(s, i);
	fputs("</g>\n", s->out);
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
	if (o->reverse && !(f = rev = flame_reversed(f)))
		return -1;
	int rc = layout_build(f, o, &l);
	if (rc == 0) {
		struct svg s = { out, o, &l, 0, 0 };
		s.width = (int)l.plot_width + 2 * LAYOUT_XPAD;
		s.height = HEAD_H + (int)(l.max_depth + 1) * FRAME_H + FOOT_H;
		put_header(&s);
		if (l.total) {
			put_legend(&s);
			put_frames(&s);
		} else {
			fprintf(out, "<text id=\"empty\" x=\"%d\" y=\"%d\">No samples: the profile is empty</text>\n",
				s.width / 2, HEAD_H + 6);
		}
		fputs("<script type=\"text/ecmascript\">", out);
		put_cdata(out, lf_flame_js);
		fputs("</script>\n</svg>\n", out);
		layout_free(&l);
	}
	flame_free(rev);
	if (fflush(out) != 0 || ferror(out))
		rc = -1;
	return rc;
}
