/* The speedscope writer: speedscope's own file format
 * (https://www.speedscope.app/file-format-schema.json), one "sampled" profile whose
 * samples are frame-index stacks (root first) weighted in nanoseconds. */
#include <stdlib.h>
#include <string.h>

#include "stack_strings.h"
#include "out_formats.h"

/* Length of the well-formed UTF-8 sequence at s (no overlongs, surrogates or code
 * points past U+10FFFF), or 0 when s[0] does not start one. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t need;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 2;
	else if (c >= 0xe0 && c <= 0xef)
		need = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < need || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need;
}

/* A JSON string: quotes, backslashes and control characters escaped, each byte that
 * is not part of valid UTF-8 replaced by U+FFFD, so any label yields valid JSON. */
static void json_str(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	putc('"', f);
	for (size_t i = 0; i < n;) {
		unsigned char c = u[i];
		size_t k = utf8_seq(u + i, n - i);
		if (k == 0) {
			fputs("\\ufffd", f);
			k = 1;
		} else if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else {
			fwrite(u + i, 1, k, f);
		}
		i += k;
	}
	putc('"', f);
}

static void put_frame(FILE *f, const char *label, size_t len, struct sbuf *name)
{
	struct frame_label fl;
	frame_label_parse(label, len, &fl);
	frame_label_func_name(&fl, name);
	fputs("{\"name\":", f);
	json_str(f, name->s, name->len);
	if (fl.file_len) {
		fputs(",\"file\":", f);
		json_str(f, fl.file, fl.file_len);
	}
	if (fl.kind == KIND_LUA || fl.kind == KIND_JIT)
		fprintf(f, ",\"line\":%ld", fl.line);
	putc('}', f);
}

/* Nanoseconds of a recording's samples; a heap snapshot's or an allocation profile's counts are bytes already. */
static uint64_t weight(uint64_t count, const struct profile *p)
{
	if (p->heap || p->alloc)
		return count;
	double v = (double)count * 1e9 / (p->hz > 0 ? p->hz : 99);
	return v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
}

static void put_header(FILE *f, const struct profile *p, struct prof_entry **v)
{
	struct sbuf name;
	sb_init(&name);
	sb_printf(&name, "%.*s", (int)strnlen(p->command, sizeof(p->command)),
		  p->command[0] ? p->command : "lua-flame");
	if (p->pids[0])
		sb_printf(&name, " (pid %.*s)", (int)strnlen(p->pids, sizeof(p->pids)), p->pids);
	uint64_t end = 0;
	for (size_t i = 0; v[i]; i++)
		end += weight(v[i]->count, p);
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", f);
	fputs("\"exporter\":\"lua-flame " LUA_FLAME_VERSION "\",\n\"name\":", f);
	json_str(f, name.s, name.len);
	fputs(",\n\"activeProfileIndex\":0,\n\"profiles\":[{\"type\":\"sampled\",\"name\":", f);
	json_str(f, name.s, name.len);
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%llu,\n\"samples\":[",
		p->heap || p->alloc ? "bytes" : "nanoseconds", (unsigned long long)end);
	sb_free(&name);
}

/* Samples first, interning frames on the way; the frame table follows them. */
static void put_samples(FILE *f, struct prof_entry **v, struct intern *frames)
{
	struct frame_span *fr = NULL;
	size_t cap = 0;
	for (size_t i = 0; v[i]; i++) {
		size_t n = stack_frames(v[i]->stack, v[i]->len, &fr, &cap);
		fputs(i ? ",\n[" : "\n[", f);
		for (size_t j = 0; j < n; j++)
			fprintf(f, "%s%u", j ? "," : "", intern_add(frames, fr[j].s, fr[j].len, NULL));
		putc(']', f);
	}
	free(fr);
}

int write_speedscope(FILE *f, const struct profile *p)
{
	struct prof_entry **v = profile_sorted(p);
	struct intern frames;
	struct sbuf name;
	intern_init(&frames);
	sb_init(&name);
	put_header(f, p, v);
	put_samples(f, v, &frames);
	fputs("],\n\"weights\":[", f);
	for (size_t i = 0; v[i]; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)weight(v[i]->count, p));
	fputs("]}],\n\"shared\":{\"frames\":[", f);
	for (size_t i = 0; i < frames.n; i++) {
		fputs(i ? ",\n" : "\n", f);
		put_frame(f, frames.str[i], frames.len[i], &name);
	}
	fputs("]}}\n", f);
	intern_free(&frames);
	sb_free(&name);
	free(v);
	return ferror(f) ? -1 : 0;
}
