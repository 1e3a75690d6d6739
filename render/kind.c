/* Frame kinds from labels alone, so `lua-flame render perf.folded` draws the same
 * picture as the recorder, and their colours. Palettes are far apart in hue so kinds
 * read at a glance; magenta is left free for search matches. */
#include <string.h>
#include "kind.h"

static int ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && !memcmp(s + len - n, suffix, n);
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && !memcmp(s, prefix, n);
}

/* "(CHUNK:LINE)" at the end, after a space: a Lua function frame. */
static int lua_shaped(const char *s, size_t len)
{
	size_t i = len, digits = 0;
	if (!len || s[len - 1] != ')')
		return 0;
	i--;
	while (i && s[i - 1] >= '0' && s[i - 1] <= '9') {
		i--;
		digits++;
	}
	if (!digits || !i || s[i - 1] != ':')
		return 0;
	for (i--; i; i--) {
		if (s[i - 1] == '(')
			return i >= 2 && s[i - 2] == ' ';
	}
	return 0;
}

static enum frame_kind bracketed(const char *s, size_t len)
{
	if (starts_with(s, len, "[off-CPU"))
		return KIND_OFFCPU;
	static const char *const markers[] = { "[unknown", "[unwind", "[truncat", "[lost", "[missing",
		"[error", "[no ", "[idle" };
	static const char *const native[] = { "[vdso]", "[vsyscall]", "[heap]", "[stack]", "[anon" };
	for (size_t i = 0; i < sizeof(markers) / sizeof(*markers); i++)
		if (starts_with(s, len, markers[i]))
			return KIND_MARKER;
	for (size_t i = 0; i < sizeof(native) / sizeof(*native); i++)
		if (starts_with(s, len, native[i]))
			return KIND_NATIVE;
	return KIND_VM;
}

enum frame_kind kind_of(const char *s, size_t len)
{
	if (ends_with(s, len, "_[k]"))
		return KIND_KERNEL;
	if (ends_with(s, len, "_[j]"))
		return KIND_JIT;
	/* perf's inline and waker annotations say nothing about the language */
	if (ends_with(s, len, "_[i]") || ends_with(s, len, "_[w]"))
		len -= 4;
	if (len >= 2 && s[0] == '[' && s[len - 1] == ']')
		return bracketed(s, len);
	if (lua_shaped(s, len))
		return KIND_LUA;
	return KIND_NATIVE;
}

const char *kind_label(enum frame_kind k)
{
	static const char *const labels[KIND_COUNT] = {
		"Lua", "Lua (JIT trace)", "C/native", "kernel", "VM state (GC, JIT)", "unknown/marker",
		"off-CPU (waiting)",
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
