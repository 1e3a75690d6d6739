/* Untrusted input to the renderer: folded files (malformed lines, junk, long lines,
 * other tools' output), UTF-8 cleaning, and frame kinds and colours from labels. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "kind.h"
#include "layout.h"
#include "text.h"

/* Reads TEXT (LEN bytes) as a folded file; returns the tree, *IGNORED the skipped lines. */
static struct flame *read_text(const char *text, size_t len, size_t *ignored)
{
	struct flame *f = flame_new();
	FILE *in = fmemopen((void *)text, len, "rb");
	CHECK(in != NULL);
	CHECK_INT(flame_read_folded(f, in, ignored), 0);
	fclose(in);
	return f;
}

static const struct fnode *child(const struct fnode *p, const char *name)
{
	for (const struct fnode *c = p ? p->child : NULL; c; c = c->next)
		if (c->len == strlen(name) && !memcmp(c->name, name, c->len))
			return c;
	return NULL;
}

static void malformed_lines(void)
{
	static const char text[] =
		"a;b 10\n"
		"no count here\n"
		"a;b -5\n"
		"a;b 99999999999999999999999\n"
		"\n"
		"   \n"
		"a;c 2.5\n"
		"12\n"
		"a;c 3\r\n"          /* CRLF */
		"a;c\t4\n"           /* tab before the count */
		"a;d 0\n"            /* zero: nothing to draw, not an error */
		"a;b 1";             /* no final newline */
	size_t ignored = 99;
	struct flame *f = read_text(text, sizeof(text) - 1, &ignored);
	CHECK_INT(ignored, 7);
	CHECK_INT(flame_total(f), 18);
	const struct fnode *a = child(&f->root, "a");
	CHECK(a && a->total == 18);
	CHECK(child(a, "b") && child(a, "b")->total == 11);
	CHECK(child(a, "c") && child(a, "c")->total == 7);
	CHECK(child(a, "d") == NULL);
	flame_free(f);
}

static void binary_junk(void)
{
	size_t n = 1 << 18;
	unsigned char *junk = malloc(n);
	unsigned seed = 1;
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		junk[i] = (unsigned char)(seed >> 16);
	}
	size_t ignored = 0;
	struct flame *f = read_text((const char *)junk, n, &ignored);
	CHECK(ignored > 100);   /* about one line per 256 bytes, nearly all malformed */
	/* whatever got in has clean names */
	int dirty = 0;
	for (size_t i = 0; i < f->nslots; i++) {
		const struct fnode *x = f->slots[i];
		char buf[FLAME_MAX_NAME];
		if (x && (text_clean(x->name, x->len, buf, sizeof(buf)) != x->len || memcmp(buf, x->name, x->len)))
			dirty++;
	}
	CHECK_INT(dirty, 0);
	flame_free(f);
	free(junk);
}

static void long_lines(void)
{
	/* a 3 MiB line (over the 1 MiB cap) between two good ones */
	size_t big = 3u << 20;
	char *text = malloc(big + 64);
	size_t len = (size_t)sprintf(text, "x;y 1\n");
	memset(text + len, 'z', big);
	len += big;
	len += (size_t)sprintf(text + len, " 5\nx;w 2\n");
	size_t ignored = 0;
	struct flame *f = read_text(text, len, &ignored);
	CHECK_INT(ignored, 1);
	CHECK_INT(flame_total(f), 3);
	flame_free(f);
	/* a long but acceptable line: names are capped, nothing is lost */
	len = (size_t)sprintf(text, "p;");
	memset(text + len, 'n', 100000);
	len += 100000;
	len += (size_t)sprintf(text + len, " 7\n");
	f = read_text(text, len, &ignored);
	CHECK_INT(ignored, 0);
	CHECK_INT(flame_total(f), 7);
	const struct fnode *p = child(&f->root, "p");
	CHECK(p && p->child && p->child->len == FLAME_MAX_NAME);
	flame_free(f);
	free(text);
}

static void other_tools(void)
{
	/* stackcollapse-perf.pl (with annotations) and py-spy --format raw */
	static const char text[] =
		"nginx;[unknown];ngx_epoll_process_events;epoll_wait;entry_SYSCALL_64_after_hwframe_[k];"
		"do_syscall_64_[k] 17\n"
		"nginx;ngx_http_lua_handler;lj_BC_FUNCF;lj_str_new_[i] 4\n"
		"process 4242:\"python3 app.py\";<module> (app.py:10);main (app.py:6);work (app.py:2) 31\n"
		"MainThread;_bootstrap (threading.py:995) 2\n";
	size_t ignored = 9;
	struct flame *f = read_text(text, sizeof(text) - 1, &ignored);
	CHECK_INT(ignored, 0);
	CHECK_INT(flame_total(f), 54);
	const struct fnode *py = child(&f->root, "process 4242:\"python3 app.py\"");
	CHECK(py && child(py, "<module> (app.py:10)"));
	flame_free(f);
}

static void utf8_cleaning(void)
{
	char out[64];
	size_t n;
	n = text_clean("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", 14, out, sizeof(out));
	CHECK_INT(n, 14);   /* valid UTF-8 passes untouched */
	n = text_clean("a\xff" "b", 3, out, sizeof(out));
	CHECK(n == 5 && !memcmp(out, "a\xef\xbf\xbd" "b", 5));
	n = text_clean("\xc0\xaf", 2, out, sizeof(out));                  /* overlong '/' */
	CHECK(n == 6 && !memcmp(out, "\xef\xbf\xbd\xef\xbf\xbd", 6));
	n = text_clean("\xed\xa0\x80", 3, out, sizeof(out));              /* surrogate */
	CHECK(n == 3 && !memcmp(out, "\xef\xbf\xbd", 3));
	n = text_clean("\xef\xbf\xbe", 3, out, sizeof(out));              /* U+FFFE, not XML */
	CHECK(n == 3 && !memcmp(out, "\xef\xbf\xbd", 3));
	n = text_clean("t\tn\n\x01\x7f\xc2\x85", 8, out, sizeof(out));   /* controls, C1 too */
	CHECK(n == 17 && out[0] == 't' && out[4] == 'n');
	n = text_clean("\xe2\x82", 2, out, sizeof(out));                  /* cut sequence */
	CHECK_INT(n, 6);
	n = text_clean("ab\xe2\x82\xac", 5, out, 4);                      /* full: stop on a boundary */
	CHECK_INT(n, 2);
	CHECK_INT(text_chars("a\xc3\xa9\xe2\x82\xac", 6), 3);
	CHECK_INT(text_prefix("a\xc3\xa9\xe2\x82\xac", 6, 2), 3);
}

static void xml_escaping(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	const char hostile[] = "<a href=\"x\">&amp;'</a>]]>\x01\xff";
	text_put_xml(m, hostile, sizeof(hostile) - 1);
	fclose(m);
	CHECK_STR(buf, "&lt;a href=&quot;x&quot;&gt;&amp;amp;&#39;&lt;/a&gt;]]&gt;\xef\xbf\xbd\xef\xbf\xbd");
	free(buf);
}

static void kinds(void)
{
	static const struct { const char *label; enum frame_kind kind; } cases[] = {
		{ "handle_request (app.lua:42)", KIND_LUA },
		{ "main chunk (@/srv/x y.lua:0)", KIND_LUA },
		{ "? (=stdin:1)", KIND_LUA },
		{ "handle (app.lua:42)_[j]", KIND_JIT },
		{ "do_syscall_64_[k]", KIND_KERNEL },
		{ "[GC]", KIND_VM },
		{ "[JIT compiler]", KIND_VM },
		{ "[trace 17]", KIND_VM },
		{ "[interpreter]", KIND_VM },
		{ "[unknown]", KIND_MARKER },
		{ "[unwind: no table]", KIND_MARKER },
		{ "[off-CPU: do_nanosleep]", KIND_OFFCPU },
		{ "[off-CPU: preempted]", KIND_OFFCPU },
		{ "[off-CPU]", KIND_OFFCPU },
		{ "ngx_http_lua_content_handler", KIND_NATIVE },
		{ "libfoo.so+0x1a2b", KIND_NATIVE },
		{ "string.rep", KIND_NATIVE },
		{ "foo(bar:1)", KIND_NATIVE },        /* no space before '(' */
		{ "f (a.lua:)", KIND_NATIVE },        /* no line number */
		{ "lj_str_new_[i]", KIND_NATIVE },
		{ "[vdso]", KIND_NATIVE },
		{ "", KIND_NATIVE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		enum frame_kind k = kind_of(cases[i].label, strlen(cases[i].label));
		if (k != cases[i].kind)
			printf("  kind of '%s' is %d, expected %d\n", cases[i].label, k, cases[i].kind);
		CHECK(k == cases[i].kind);
	}
}

static int hue_of(const char *hex)
{
	unsigned r, g, b;
	sscanf(hex + 1, "%2x%2x%2x", &r, &g, &b);
	unsigned mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
	unsigned mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
	if (mx == mn)
		return -1;
	double d = mx - mn, h;
	if (mx == r) h = 60 * ((g - (double)b) / d);
	else if (mx == g) h = 60 * ((b - (double)r) / d + 2);
	else h = 60 * ((r - (double)g) / d + 4);
	return (int)(h < 0 ? h + 360 : h);
}

/* A heap snapshot's frames by their place in its grammar; a key may look like anything. */
static void heap_kinds(void)
{
	static const struct { const char *s; int depth; enum frame_kind k; } cases[] = {
		{ "nginx-42", 0, KIND_HEAP_FIELD }, { "[vm]", 0, KIND_HEAP_FIELD },
		{ "cache", 1, KIND_HEAP_FIELD }, { "handle (app.lua:42)", 3, KIND_HEAP_FIELD },
		{ "local big", 2, KIND_HEAP_VAR }, { "upvalue list", 2, KIND_HEAP_VAR },
		{ "[n]", 2, KIND_HEAP_STEP }, { "[registry]", 1, KIND_HEAP_STEP }, { "[metatable]", 4, KIND_HEAP_STEP },
		{ "[table]", 3, KIND_HEAP_TYPE }, { "[C function]", 3, KIND_HEAP_TYPE }, { "[trace]", 2, KIND_HEAP_TYPE },
		{ "[vm]", 1, KIND_HEAP_VM }, { "[unreached]", 1, KIND_HEAP_VM }, { "[string table]", 2, KIND_HEAP_VM },
		{ "[tablex]", 2, KIND_HEAP_STEP }, { "[", 2, KIND_HEAP_FIELD }, { "", 2, KIND_HEAP_FIELD },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(heap_kind_of(cases[i].s, strlen(cases[i].s), cases[i].depth), cases[i].k);
}

static void colors(void)
{
	char a[8], b[8];
	uint32_t h = flame_hash("handle (app.lua:42)", 19);
	CHECK_INT(h, flame_hash("handle (app.lua:42)", 19));
	kind_color(KIND_LUA, h, a);
	kind_color(KIND_LUA, h, b);
	CHECK_STR(a, b);
	/* each kind stays in its own hue band, whatever the name */
	static const int lo[KIND_COUNT] = { 90, 168, 0, 204, 40, -1, 246, 14, 90, 204, 40, -1 },
			 hi[KIND_COUNT] = { 140, 196, 36, 236, 58, -1, 274, 44, 140, 236, 58, -1 };
	int off = 0, shades = 0;
	for (int k = 0; k < KIND_COUNT; k++) {
		char first[8] = "";
		for (uint32_t i = 0; i < 200; i++) {
			char c[8];
			kind_color((enum frame_kind)k, flame_hash((const char *)&i, sizeof(i)), c);
			int hue = hue_of(c);
			if (lo[k] < 0 ? hue != -1 : (hue < lo[k] || hue > hi[k]))
				off++;
			if (!i)
				memcpy(first, c, 8);
			else if (strcmp(first, c))
				shades++;
		}
	}
	CHECK_INT(off, 0);
	CHECK(shades > 900);   /* names pick different shades */
}

int main(void)
{
	RUN(malformed_lines);
	RUN(binary_junk);
	RUN(long_lines);
	RUN(other_tools);
	RUN(utf8_cleaning);
	RUN(xml_escaping);
	RUN(kinds);
	RUN(colors);
	RUN(heap_kinds);
	CHECK_EXIT();
}
