/* The SVG writer: structure, escaping of hostile names and titles, truncated labels,
 * pruning, inverted layout, the empty profile and deterministic output. */
#include <stdlib.h>
#include <string.h>
#include "assets.h"
#include "check.h"
#include "flame.h"
#include "svg_of.h"

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static struct flame *sample_tree(void)
{
	struct flame *f = flame_new();
	const char *s[] = {
		"nginx;ngx_http_lua_content_handler;handle (app.lua:42);string.format",
		"nginx;ngx_http_lua_content_handler;handle (app.lua:42)_[j]",
		"nginx;main;[GC]",
		"nginx;epoll_wait;do_syscall_64_[k]",
		"nginx;a_function_with_a_rather_long_name_that_cannot_fit_in_a_narrow_frame",
	};
	const unsigned c[] = { 500, 300, 100, 96, 4 };
	for (int i = 0; i < 5; i++)
		flame_add(f, s[i], strlen(s[i]), c[i]);
	return f;
}

static void structure(void)
{
	struct flame *f = sample_tree();
	struct flame_opts o;
	flame_opts_default(&o);
	o.subtitle = "pid 4242, 30 s";
	o.minwidth = 0;
	char *svg = svg_of(f, &o);
	CHECK(!strncmp(svg, "<?xml version=\"1.0\"", 19));
	CHECK(strstr(svg, "width=\"1200\"") != NULL);
	CHECK(strstr(svg, ">Flame Graph</text>") != NULL);
	CHECK(strstr(svg, ">pid 4242, 30 s</text>") != NULL);
	CHECK_INT(count(svg, "<script"), 1);
	CHECK_INT(count(svg, "<g data-o="), 11);     /* all + 10 distinct frames */
	for (const char *k = "Lua\0Lua (JIT trace)\0C/native\0kernel\0VM state (GC, JIT)\0"; *k; k += strlen(k) + 1) {
		char want[64];
		snprintf(want, sizeof(want), ">%s</text>", k);
		CHECK(strstr(svg, want) != NULL);
	}
	CHECK(strstr(svg, "unknown/marker") == NULL);   /* no such frames here */
	CHECK(strstr(svg, "<title>all\n1,000 samples, 100.00%</title>") != NULL);
	CHECK(strstr(svg, "<title>handle (app.lua:42)\n500 samples, 50.00%</title>") != NULL);
	/* 4 of 1000 samples is 4.72 px: room for no label; the title keeps the full name */
	CHECK(strstr(svg, "\">a_fun") == NULL);
	CHECK(strstr(svg, "<title>a_function_with_a_rather_long_name") != NULL);
	/* embedded assets are there, and the script never names a frame */
	CHECK(strstr(svg, "function zoom(") != NULL);
	CHECK(strstr(svg, "#frames g.m rect") != NULL);
	CHECK(strstr(lf_flame_js, "]]>") == NULL && strstr(lf_flame_css, "]]>") == NULL);
	CHECK_INT(count(svg, "]]>"), 2);
	char *again = svg_of(f, &o);
	CHECK(!strcmp(svg, again));   /* same input, same bytes: colours and order are stable */
	free(again);
	free(svg);
	flame_free(f);
}

static void labels_fit(void)
{
	struct flame *f = flame_new();
	const char *s = "p;short;x";
	const char *l = "p;a_function_with_a_rather_long_name_that_is_cut_here_and_there";
	flame_add(f, s, strlen(s), 95);
	flame_add(f, l, strlen(l), 5);   /* 59 px: room for (59-6)/7.08 = 7 characters */
	struct flame_opts o;
	flame_opts_default(&o);
	char *svg = svg_of(f, &o);
	CHECK(strstr(svg, ">a_fun..</text>") != NULL);
	CHECK(strstr(svg, ">short</text>") != NULL);
	free(svg);
	flame_free(f);
}

static void hostile_names(void)
{
	struct flame *f = flame_new();
	const char *s[] = {
		"app;<script>alert(1)</script>",
		"app;]]><script>alert(2)</script>",
		"app;\"><img src=x onerror=alert(3)>",
		"app;&amp;&#0;\x01\x1b[31m\xff\xfe",
	};
	for (int i = 0; i < 4; i++)
		flame_add(f, s[i], strlen(s[i]), 10);
	struct flame_opts o;
	flame_opts_default(&o);
	o.title = "</text><script>alert(4)</script>";
	o.subtitle = "\xc3\x28 & \"quotes\"";
	o.countname = "\"><script>alert(5)</script>";
	char *svg = svg_of(f, &o);
	CHECK_INT(count(svg, "<script"), 1);
	CHECK_INT(count(svg, "<img"), 0);
	CHECK_INT(count(svg, "]]>"), 2);
	CHECK(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	CHECK(strstr(svg, "&amp;amp") != NULL);
	CHECK(strstr(svg, "\x01") == NULL && strstr(svg, "\x1b") == NULL && strstr(svg, "\xff") == NULL);
	CHECK(strstr(svg, "\xef\xbf\xbd( &amp; &quot;quotes&quot;") != NULL);
	CHECK(strstr(svg, "data-count=\"&quot;&gt;&lt;script&gt;") != NULL);
	free(svg);
	flame_free(f);
}

static void pruned_and_inverted(void)
{
	struct flame *f = sample_tree();
	struct flame_opts o;
	flame_opts_default(&o);
	o.minwidth = 10;   /* pixels: drops the 4-sample frame (4.72 px) */
	char *svg = svg_of(f, &o);
	CHECK_INT(count(svg, "<g data-o="), 10);
	CHECK(strstr(svg, "a_function_with") == NULL);
	free(svg);
	o.minwidth = 0;
	o.inverted = 1;
	svg = svg_of(f, &o);
	CHECK(strstr(svg, ">Icicle Graph</text>") != NULL);
	CHECK(strstr(svg, "data-dir=\"1\"") != NULL);
	/* root frame at the top of the frame area */
	const char *root = strstr(svg, "<title>all\n");
	CHECK(root && strstr(root, "y=\"74\"") && strstr(root, "y=\"74\"") < strstr(root, "</g>"));
	free(svg);
	o.inverted = 0;
	o.width = 400;
	o.title = "custom";
	o.countname = "microseconds";
	svg = svg_of(f, &o);
	CHECK(strstr(svg, "width=\"400\"") != NULL);
	CHECK(strstr(svg, ">custom</text>") != NULL);
	CHECK(strstr(svg, "1,000 microseconds") != NULL);
	free(svg);
	flame_free(f);
}

static void empty_profile(void)
{
	struct flame *f = flame_new();
	char *svg = svg_of(f, NULL);
	CHECK(strstr(svg, "No samples") != NULL);
	CHECK_INT(count(svg, "<g data-o="), 0);
	CHECK(strstr(svg, "</svg>") != NULL);
	free(svg);
	flame_free(f);
}

int main(void)
{
	RUN(structure);
	RUN(labels_fit);
	RUN(hostile_names);
	RUN(pruned_and_inverted);
	RUN(empty_profile);
	CHECK_EXIT();
}
