/* The differential flame graph's own pieces of SVG, called by svg.c when
 * flame_opts.diff is set: colours by change (red grew, blue shrank, pale unchanged),
 * BEFORE counts and the frame's kind (its colour no longer says it) for the tooltip and
 * the script, and the legend. */
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include "diff.h"
#include "kind.h"
#include "text.h"

#define FONT_PX 6.6   /* average glyph width of the 11px legend text */

struct rgb { double r, g, b; };

static const struct rgb neutral = { 226, 226, 218 };
static const struct rgb grew = { 214, 24, 28 };
static const struct rgb shrank = { 32, 96, 214 };

static void mix(struct rgb to, double t, char buf[8])
{
	int r = (int)(neutral.r + (to.r - neutral.r) * t + 0.5);
	int g = (int)(neutral.g + (to.g - neutral.g) * t + 0.5);
	int b = (int)(neutral.b + (to.b - neutral.b) * t + 0.5);
	snprintf(buf, 8, "#%02x%02x%02x", r & 0xFF, g & 0xFF, b & 0xFF);
}

void diff_color(const struct flame_diff *d, const struct fnode *x, char buf[8])
{
	const struct diff_entry *e = diff_lookup(d, x);
	double c = diff_change(d, e->total, x->total);
	double t = d->max_change > 0 ? fabs(c) / d->max_change : 0;
	mix(c >= 0 ? grew : shrank, t > 1 ? 1 : t, buf);
}

void diff_put_attrs(const struct flame_diff *d, const struct fnode *x, FILE *out)
{
	const struct diff_entry *e = diff_lookup(d, x);
	fprintf(out, " data-b=\"%" PRIu64 "\" data-k=\"%s\"", e->total,
		x->parent ? kind_label(diff_kind(d, x->name, x->len)) : "all");
	if (!e->found)
		fputs(" class=\"new\"", out);
}

static double pct(uint64_t n, uint64_t of)
{
	return of ? 100.0 * (double)n / (double)of : 0;
}

static void put_signed(FILE *out, uint64_t b, uint64_t a)
{
	if (a >= b)
		fprintf(out, "+%" PRIu64, a - b);
	else
		fprintf(out, "-%" PRIu64, b - a);
}

/* Text after "N samples, x%" on the tooltip's last line: BEFORE and the change. */
void diff_put_title(const struct flame_diff *d, const struct fnode *x, FILE *out)
{
	const struct diff_entry *e = diff_lookup(d, x);
	double pts = pct(x->total, d->after->root.total) - pct(e->total, d->before->root.total);
	fprintf(out, "; before %" PRIu64 ", %.2f%%; change %+.2f pts, ", e->total,
		pct(e->total, d->before->root.total), pts);
	put_signed(out, e->total, x->total);
	if (!e->found)
		fputs("; new: not in BEFORE", out);
	if (e->gone)
		fprintf(out, "; %" PRIu64 " before in child frames gone since", e->gone);
	if (x->parent)
		fprintf(out, "; %s", kind_label(diff_kind(d, x->name, x->len)));
}

void diff_put_frames_attrs(const struct flame_diff *d, FILE *out)
{
	fprintf(out, " data-btotal=\"%" PRIu64 "\"", d->before->root.total);
}

static double swatch(FILE *out, double x, double y, const char *fill, const char *cls, const char *label)
{
	fprintf(out, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" height=\"12\" fill=\"%s\"%s/>"
		"<text x=\"%.0f\" y=\"%.0f\">%s</text>", x, y, fill, cls, x + 16, y + 10, label);
	return x + 16 + (double)strlen(label) * FONT_PX + 18;
}

void diff_put_legend(const struct flame_diff *d, FILE *out, double x, double y)
{
	char red[8], blue[8], pale[8];
	mix(grew, 1, red);
	mix(shrank, 1, blue);
	mix(grew, 0, pale);
	fputs("<g id=\"legend\">", out);
	x = swatch(out, x, y, red, "", "grew");
	x = swatch(out, x, y, blue, "", "shrank");
	x = swatch(out, x, y, pale, "", "unchanged");
	x = swatch(out, x, y, pale, " class=\"new\"", "only in AFTER");
	const char *unit = d->unit ? d->unit : "samples";
	fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">full colour: ", x, y + 10);
	if (d->raw)
		fprintf(out, "%.0f ", d->max_change);
	else
		fprintf(out, "%.2f pts of all ", 100 * d->max_change);
	text_put_xml(out, unit, strlen(unit));
	if (d->gone_frames) {
		fprintf(out, "; not drawn: %" PRIu64 " frame%s only in BEFORE (%" PRIu64 " ", d->gone_frames,
			d->gone_frames == 1 ? "" : "s", d->gone_samples);
		text_put_xml(out, unit, strlen(unit));
		fprintf(out, ", %.2f%%)", pct(d->gone_samples, d->before->root.total));
	}
	fputs("</text></g>\n", out);
}
