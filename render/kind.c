/* The colours of frame kinds. Palettes are far apart in hue so kinds read at a glance;
 * magenta is left free for search matches. */
#include <string.h>
#include "kind.h"

const char *kind_label(enum frame_kind k)
{
	static const char *const labels[KIND_COUNT] = {
		"Lua", "Lua (JIT trace)", "C/native", "kernel", "VM state (GC, JIT)", "unknown/marker",
		"off-CPU (waiting)", "field", "local/upvalue", "step ([n], [registry], ...)", "type",
		"VM's own, unreached",
	};
	return (unsigned)k < KIND_COUNT ? labels[k] : "?";
}

/* Hue range, saturation and lightness ranges per kind, in degrees and percent. */
static const struct { double h0, h1, s0, s1, l0, l1; } palette[KIND_COUNT] = {
	[KIND_LUA]    = { 95, 135, 45, 65, 50, 62 },
	[KIND_JIT]    = { 172, 192, 60, 75, 48, 60 },
	[KIND_NATIVE] = { 0, 32, 70, 85, 58, 68 },
	[KIND_KERNEL] = { 208, 232, 55, 70, 62, 72 },
	[KIND_VM]     = { 44, 54, 85, 95, 52, 60 },
	[KIND_MARKER] = { 0, 0, 0, 0, 66, 76 },
	[KIND_OFFCPU] = { 250, 270, 30, 45, 56, 66 },
	[KIND_HEAP_FIELD] = { 18, 40, 70, 85, 58, 68 },
	[KIND_HEAP_VAR]   = { 95, 135, 45, 65, 50, 62 },
	[KIND_HEAP_STEP]  = { 208, 232, 55, 70, 62, 72 },
	[KIND_HEAP_TYPE]  = { 44, 54, 85, 95, 52, 60 },
	[KIND_HEAP_VM]    = { 0, 0, 0, 0, 66, 76 },
};

static double channel(double p, double q, double t)
{
	if (t < 0) t += 1;
	if (t > 1) t -= 1;
	if (t < 1.0 / 6) return p + (q - p) * 6 * t;
	if (t < 0.5) return q;
	if (t < 2.0 / 3) return p + (q - p) * (2.0 / 3 - t) * 6;
	return p;
}

void kind_color(enum frame_kind k, uint32_t hash, char buf[8])
{
	if ((unsigned)k >= KIND_COUNT)
		k = KIND_MARKER;
	/* three independent bytes of the hash choose hue, saturation, lightness */
	double a = (hash & 0xFF) / 255.0, b = ((hash >> 8) & 0xFF) / 255.0;
	double c = ((hash >> 16) & 0xFF) / 255.0;
	double h = (palette[k].h0 + (palette[k].h1 - palette[k].h0) * a) / 360.0;
	double s = (palette[k].s0 + (palette[k].s1 - palette[k].s0) * b) / 100.0;
	double l = (palette[k].l0 + (palette[k].l1 - palette[k].l0) * c) / 100.0;
	double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
	int r = (int)(channel(p, q, h + 1.0 / 3) * 255 + 0.5);
	int g = (int)(channel(p, q, h) * 255 + 0.5);
	int bl = (int)(channel(p, q, h - 1.0 / 3) * 255 + 0.5);
	/* "#%02x%02x%02x" without snprintf: this runs for every frame drawn */
	static const char hex[] = "0123456789abcdef";
	int rgb[3] = { r & 0xFF, g & 0xFF, bl & 0xFF };
	buf[0] = '#';
	for (int i = 0; i < 3; i++) {
		buf[1 + 2 * i] = hex[rgb[i] >> 4];
		buf[2 + 2 * i] = hex[rgb[i] & 0xF];
	}
	buf[7] = '\0';
}
