/* Reading a folded file for drawing (flame_read_folded_for) drops what cannot be drawn as
 * it goes, and gives most frames a node only once the input has left them: the SVG must
 * be the one drawn from the whole tree (flame_read_folded), byte for byte, for sorted and
 * unsorted files (sorted first, repeated stacks summed), across the reader's buffer refills, with names that are cleaned or cut,
 * names that only match once cleaned, stacks that are prefixes of others, and stacks
 * deeper than the cap. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "svg_of.h"
#include "tree.h"

static unsigned seed;

static unsigned rnd(unsigned n)
{
	seed = seed * 1103515245u + 12345u;
	return (seed >> 8) % n;
}

#define NAMES 64
static char *names[NAMES];

static void make_names(void)
{
	for (int i = 0; i < NAMES; i++) {
		char buf[64];
		switch (i % 8) {
		case 0: snprintf(buf, sizeof(buf), "handle_%d (app/mod_%d.lua:%d)", i, i % 5, 10 + i); break;
		case 1: snprintf(buf, sizeof(buf), "libc.so.6+0x%x", 0x1a2b3 + i * 64); break;
		case 2: snprintf(buf, sizeof(buf), "f%d_", i); break;
		case 3: snprintf(buf, sizeof(buf), "a<b>&\"c\"_%d", i); break;
		case 4: snprintf(buf, sizeof(buf), "bad\377%d", i / 8); break;   /* cleaned */
		case 5: snprintf(buf, sizeof(buf), "caf\303\251_%d", i / 8); break;
		case 6: snprintf(buf, sizeof(buf), "do_syscall_64_[k]"); break;
		default: snprintf(buf, sizeof(buf), "[GC]"); break;
		}
		names[i] = strdup(buf);
	}
	/* two names longer than FLAME_MAX_NAME: cut */
	for (int i = 0; i < 2; i++) {
		free(names[i * 8 + 7]);
		names[i * 8 + 7] = malloc(FLAME_MAX_NAME + 101);
		memset(names[i * 8 + 7], 'm' + i, FLAME_MAX_NAME + 100);
		names[i * 8 + 7][FLAME_MAX_NAME + 100] = '\0';
	}
}

static int by_bytes(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* N lines over a call graph where each frame has a few likely callees, so stacks share
 * prefixes; some stacks end where others go on. Sorted like `LC_ALL=C sort` unless
 * SHUFFLED. Returns the file, rewound. */
static FILE *folded_file(size_t n, int shuffled)
{
	char **lines = calloc(n, sizeof(*lines));
	size_t cap = 1 << 16;
	char *buf = malloc(cap);
	for (size_t i = 0; i < n; i++) {
		size_t len = 0, depth = 1 + rnd(30);
		unsigned f = rnd(NAMES);
		if (i % 5000 == 17)
			depth = FLAME_MAX_DEPTH + 5;   /* cut there, and said */
		for (size_t d = 0; d < depth; d++) {
			f = (f * 7 + (rnd(4) ? 1 : rnd(9)) + (unsigned)d) % NAMES;
			if (d < 3)
				f = (unsigned)d * 8 + 2;      /* a few common roots */
			const char *name = names[f];
			if ((f % 8 == 7) && d < 5)
				name = "short";
			size_t nl = strlen(name);
			if (len + nl + 32 > cap)
				buf = realloc(buf, cap *= 2);
			if (d)
				buf[len++] = ';';
			memcpy(buf + len, name, nl);
			len += nl;
		}
		unsigned c = rnd(10) ? 1 + rnd(5) : 1 + rnd(2000);
		len += (size_t)snprintf(buf + len, cap - len, " %u", c);
		lines[i] = strndup(buf, len);
	}
	if (shuffled)
		for (size_t i = n; i > 1; i--) {
			size_t j = rnd((unsigned)i);
			char *t = lines[i - 1];
			lines[i - 1] = lines[j];
			lines[j] = t;
		}
	else
		qsort(lines, n, sizeof(*lines), by_bytes);
	FILE *tmp = tmpfile();
	for (size_t i = 0; i < n; i++) {
		fputs(lines[i], tmp);
		fputc('\n', tmp);
		free(lines[i]);
	}
	free(lines);
	free(buf);
	rewind(tmp);
	return tmp;
}

/* Draws IN both ways with options O; returns 1 when the streamed tree was smaller. */
static int same_svg(FILE *in, const struct flame_opts *o)
{
	size_t ign_full = 0, ign_stream = 0;
	struct flame *full = flame_new(), *stream = flame_new();
	rewind(in);
	CHECK_INT(flame_read_folded(full, in, &ign_full), 0);
	rewind(in);
	CHECK_INT(flame_read_folded_for(stream, in, &ign_stream, o), 0);
	CHECK_INT(ign_stream, ign_full);
	CHECK_INT(stream->cut_stacks, full->cut_stacks);
	CHECK_INT(flame_total(stream), flame_total(full));
	char *a = svg_of(full, o), *b = svg_of(stream, o);
	CHECK(a && b && strlen(a) > 1000);
	if (a && b && strcmp(a, b)) {
		size_t i = 0;
		while (a[i] == b[i])
			i++;
		printf("  SVGs part at byte %zu: ...%.80s... vs ...%.80s...\n", i, a + (i > 40 ? i - 40 : 0),
		       b + (i > 40 ? i - 40 : 0));
		CHECK(!"same SVG");
	}
	int smaller = stream->nnodes < full->nnodes;
	free(a);
	free(b);
	flame_free(full);
	flame_free(stream);
	return smaller;
}

static void sorted_input(void)
{
	seed = 11;
	FILE *in = folded_file(40000, 0);   /* several MB: the reader refills its buffer */
	fseek(in, 0, SEEK_END);
	CHECK(ftell(in) > (3 << 20));
	struct flame_opts o;
	flame_opts_default(&o);
	CHECK(same_svg(in, &o));            /* and far fewer nodes */
	o.minwidth = 2;
	CHECK(same_svg(in, &o));
	o.heaviest_first = 1;
	o.inverted = 1;
	CHECK(same_svg(in, &o));
	flame_opts_default(&o);
	o.minwidth = 0.5;
	o.minwidth_is_percent = 1;
	CHECK(same_svg(in, &o));
	o.minwidth = 0;
	same_svg(in, &o);                   /* nothing can be dropped */
	fclose(in);
}

static void unsorted_input(void)
{
	seed = 23;
	FILE *in = folded_file(20000, 1);   /* read again with every node kept */
	fseek(in, 0, SEEK_END);
	CHECK(ftell(in) > (1 << 20));       /* stackkeys.c reads it in two parts at once */
	struct flame_opts o;
	flame_opts_default(&o);
	same_svg(in, &o);
	o.minwidth = 3;
	same_svg(in, &o);
	fclose(in);
}

/* The same stacks shuffled, each count split over two lines (a stack repeated, to be
 * summed): the SVG of the sorted file, read the way a sorted file is read. */
static void unsorted_repeats(void)
{
	seed = 31;
	FILE *in = folded_file(30000, 0), *mixed = tmpfile();
	char *line = NULL, **lines = NULL;
	size_t n = 0, cap = 0, linecap = 0;
	while (getline(&line, &linecap, in) > 0) {
		char *sp = strrchr(line, ' ');
		unsigned long c = strtoul(sp + 1, NULL, 10);
		*sp = '\0';
		for (int half = 0; half < 2; half++) {
			if (n + 1 > cap)
				lines = realloc(lines, (cap = cap ? 2 * cap : 4096) * sizeof(*lines));
			size_t len = strlen(line) + 32;
			lines[n] = malloc(len);
			snprintf(lines[n++], len, "%s %lu", line, half ? c - c / 2 : c / 2);
		}
	}
	free(line);
	for (size_t i = n; i > 1; i--) {
		size_t j = rnd((unsigned)i);
		char *t = lines[i - 1];
		lines[i - 1] = lines[j];
		lines[j] = t;
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(mixed, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	struct flame_opts o;
	flame_opts_default(&o);
	struct flame *a = flame_new(), *b = flame_new();
	size_t ign_a = 0, ign_b = 0;
	rewind(in);
	rewind(mixed);
	CHECK_INT(flame_read_folded_for(a, in, &ign_a, &o), 0);
	CHECK_INT(flame_read_folded_for(b, mixed, &ign_b, &o), 0);
	CHECK_INT(ign_b, ign_a);
	CHECK(b->cut_stacks >= a->cut_stacks && a->cut_stacks > 0);   /* said per line */
	CHECK_INT(flame_total(b), flame_total(a));
	struct flame *whole = flame_new();
	rewind(in);
	CHECK_INT(flame_read_folded(whole, in, NULL), 0);
	CHECK(b->nnodes < whole->nnodes / 2);          /* pruned, not the whole tree */
	flame_free(whole);
	char *sa = svg_of(a, &o), *sb = svg_of(b, &o);
	CHECK(sa && sb && strlen(sa) > 1000 && !strcmp(sa, sb));
	free(sa);
	free(sb);
	flame_free(a);
	flame_free(b);
	fclose(in);
	fclose(mixed);
	same_svg(mixed = folded_file(5000, 1), &o);   /* and as the whole tree draws it */
	fclose(mixed);
}

/* Hand-made cases around pending frames: a stack that is a prefix of the next one, the
 * same stack twice, names that only match once cleaned (the input comes back into the
 * frame), and a frame that comes back after its sibling "f2" (sorted bytewise: "f", then
 * "f2", then "f;..."). */
static void edge_cases(void)
{
	static const char head[] =
		"a;b 3\n"
		"a;b;c 2\n"
		"a;b;c 2\n"
		"a;b;c;d;e 1\n"
		"a;b;c;d;f 1\n";
	static const char tail[] =
		"a;b;x 1\n"
		"a;g\357\277\275;q 100\n"
		"a;g\357\277\275;q;r 1\n"
		"a;g\377;q 200\n"
		"a;h;i;j 2\n"
		"a;h;i;j;k 7\n"
		"b 5\n";
	static const char back[] =
		"a;f 500\n"
		"a;f2;x 300\n"
		"a;f;y 400\n"
		"a;f;y;z 1\n";
	FILE *in = tmpfile();
	fputs(head, in);
	for (int i = 0; i < 400; i++)   /* wide enough that the hand-made stacks can be drawn */
		fprintf(in, "a;b;c;w%03d 1\n", i);
	fputs(tail, in);
	struct flame_opts o;
	flame_opts_default(&o);
	same_svg(in, &o);
	o.minwidth = 30;
	CHECK(same_svg(in, &o));
	fseek(in, 0, SEEK_END);
	fputs(back, in);   /* sorted still, but comes back into "a;f" after "a;f2" */
	flame_opts_default(&o);
	same_svg(in, &o);
	fclose(in);
}

/* Frames dropped before they had a node are dropped all the same: coming back into
 * their parent reads the file again. */
static void back_into_dropped(void)
{
	FILE *in = tmpfile();
	fputs("a 100000\n"
	      "r;x;y;z 1\n"      /* x, y and z pending */
	      "r;q 1\n"          /* x gets a node; y, under x (too narrow), is dropped */
	      "r;x;y;w 50\n",    /* back into x: y must hold 51 */
	      in);
	struct flame_opts o;
	flame_opts_default(&o);
	same_svg(in, &o);
	fclose(in);
}

/* The order of profile_sorted: ';' before every other byte. */
static int rank(unsigned char c)
{
	return c == ';' ? 1 : c && c < ';' ? c + 1 : c;
}

static int by_frames(const void *a, const void *b)
{
	const unsigned char *x = *(const unsigned char *const *)a, *y = *(const unsigned char *const *)b;
	while (*x && *x == *y)
		x++, y++;
	int cx = *x == ' ' && !strchr((const char *)x + 1, ' ') ? 0 : rank(*x);   /* the count's space ends it */
	int cy = *y == ' ' && !strchr((const char *)y + 1, ' ') ? 0 : rank(*y);
	return cx - cy;
}

/* IN's lines, each "stack count", sorted by frames into *LINES; returns how many. */
static size_t frame_sorted_lines(FILE *in, char ***lines)
{
	size_t n = 0, cap = 1024;
	char *line = NULL;
	size_t lcap = 0;
	ssize_t len;
	*lines = malloc(cap * sizeof(**lines));
	rewind(in);
	while ((len = getline(&line, &lcap, in)) > 0) {
		if (n == cap)
			*lines = realloc(*lines, (cap *= 2) * sizeof(**lines));
		line[len - 1] = '\0';
		(*lines)[n++] = strdup(line);
	}
	free(line);
	qsort(*lines, n, sizeof(**lines), by_frames);
	return n;
}

/* Feeds LINES to flame_sorted_add with options O; the last return code. */
static int feed_sorted(struct flame *f, char **lines, size_t n, const struct flame_opts *o)
{
	struct flame_sorted *s = flame_sorted_begin(f, o);
	int rc = s ? 0 : -1;
	for (size_t i = 0; i < n && !rc; i++) {
		char *sp = strrchr(lines[i], ' ');
		rc = flame_sorted_add(s, lines[i], (size_t)(sp - lines[i]), strtoull(sp + 1, NULL, 10));
	}
	int end = s ? flame_sorted_end(s) : -1;
	return rc ? rc : end;
}

/* Stacks in memory in frame order draw the SVG the whole tree draws, from far fewer nodes. */
static void sorted_in_memory(void)
{
	seed = 23;
	FILE *in = folded_file(20000, 1);
	char **lines;
	size_t n = frame_sorted_lines(in, &lines);
	struct flame_opts o;
	flame_opts_default(&o);
	for (int pass = 0; pass < 2; pass++) {
		struct flame *full = flame_new(), *fed = flame_new();
		rewind(in);
		CHECK_INT(flame_read_folded(full, in, NULL), 0);
		CHECK_INT(feed_sorted(fed, lines, n, &o), 0);
		CHECK_INT(flame_total(fed), flame_total(full));
		CHECK(fed->nnodes < full->nnodes / 2);
		char *a = svg_of(full, &o), *b = svg_of(fed, &o);
		CHECK(a && b && strlen(a) > 1000 && !strcmp(a, b));
		free(a);
		free(b);
		flame_free(full);
		flame_free(fed);
		o.minwidth = 2;
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	fclose(in);
}

/* Out of frame order, back into a frame whose children were dropped: said, not drawn wrong. */
static void sorted_out_of_order(void)
{
	char *lines[] = { "a 100000", "r;x;y;z 1", "r;q 1", "r;x;y;w 50" };
	struct flame_opts o;
	flame_opts_default(&o);
	struct flame *f = flame_new();
	CHECK_INT(feed_sorted(f, lines, 4, &o), 1);
	flame_free(f);
	f = flame_new();
	CHECK_INT(feed_sorted(f, lines, 3, &o), 0);
	flame_free(f);
}

int main(void)
{
	make_names();
	RUN(sorted_in_memory);
	RUN(sorted_out_of_order);
	RUN(sorted_input);
	RUN(unsorted_input);
	RUN(unsorted_repeats);
	RUN(edge_cases);
	RUN(back_into_dropped);
	for (int i = 0; i < NAMES; i++)
		free(names[i]);
	CHECK_EXIT();
}
