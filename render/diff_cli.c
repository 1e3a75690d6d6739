/* `lua-flame diff`: two profiles in (folded files or lua-flame's pprof files), the
 * differential flame graph, the `stack before after` text and a table of the functions
 * that changed most out. Exit status 0, 1 when reading or writing failed, 2 for bad usage. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "diff.h"
#include "outfile.h"

#define WHO "lua-flame diff"
#define MAX_OUTS 8

static const char usage_text[] =
	"usage: lua-flame diff [options] [-o OUT.svg|OUT.folded]... [--top N] BEFORE AFTER\n"
	"Compares two profiles of the same program (folded files, or the .pb.gz pprof files\n"
	"lua-flame writes): draws AFTER with each frame coloured by how its share of all\n"
	"samples changed since BEFORE (red grew, blue shrank, paler is smaller; a dashed\n"
	"outline marks frames that BEFORE does not have).\n"
	"  -o, --output FILE     where to write; repeatable; .svg: the flame graph, .folded:\n"
	"                        'stack before after' lines with raw counts, for scripts;\n"
	"                        - is standard output (SVG unless --format folded comes\n"
	"                        first); default diff.svg, none with --top\n"
	"      --format FMT      format of the next -o whatever its name: svg or folded\n"
	"      --top N           print the N functions whose self or total share changed\n"
	"                        most, as a table\n"
	"      --raw             compare sample counts instead of shares of each profile's\n"
	"                        total (for profiles of equal length and rate)\n"
	"      --title TEXT      title (default \"Differential Flame Graph\")\n"
	"      --subtitle TEXT   second line (default: both inputs and their samples)\n"
	"      --width PIXELS    image width (default 1200)\n"
	"      --minwidth N[%]   leave out frames narrower than N pixels, or N percent\n"
	"      --countname NAME  what the counts are (default samples; bytes when both are\n"
	"                        heap snapshots' .pb.gz)\n"
	"      --inverted        icicle graph: root at the top\n"
	"      --reverse         merge stacks from the leaf up (both profiles)\n"
	"      --heaviest        order siblings by weight instead of by name\n"
	"  -h, --help            show this help\n"
	"Examples:\n"
	"  lua-flame diff -o diff.svg before.folded after.folded\n"
	"  lua-flame diff --top 10 monday.pb.gz tuesday.pb.gz\n"
	"  lua-flame diff -o - --format folded old.folded new.folded | sort -k3 -n\n";

enum out_kind { OUT_SVG, OUT_FOLDED };

struct cli {
	struct flame_opts o;
	const char *in[2];
	const char *out[MAX_OUTS];
	enum out_kind kind[MAX_OUTS];
	size_t nout, top;
	int raw, has_top;
	const char *format;
	char subtitle[512];
	char unit[2][32];     /* of each pprof input's values; "" for folded */
	int countname_given;
};

enum { OPT_FORMAT = 256, OPT_TOP, OPT_RAW, OPT_TITLE, OPT_SUBTITLE, OPT_WIDTH, OPT_MINWIDTH,
       OPT_COUNTNAME, OPT_INVERTED, OPT_REVERSE, OPT_HEAVIEST };

static const struct option long_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "raw", no_argument, NULL, OPT_RAW },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "heaviest", no_argument, NULL, OPT_HEAVIEST },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, WHO ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nRun 'lua-flame diff --help' for the options.\n");
	return 2;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

static int add_output(struct cli *c, const char *path)
{
	const char *f = c->format;
	c->format = NULL;
	if (c->nout == MAX_OUTS)
		return bad("too many outputs (at most 8): %s", path);
	if (f ? !strcmp(f, "svg") : ends_with(path, ".svg") || !strcmp(path, "-"))
		c->kind[c->nout] = OUT_SVG;
	else if (f ? !strcmp(f, "folded") : ends_with(path, ".folded"))
		c->kind[c->nout] = OUT_FOLDED;
	else
		return bad(f ? "unknown --format '%s' (diff writes svg or folded)"
			   : "cannot tell the format of '%s' from its name: use .svg or .folded, or --format", f ? f : path);
	c->out[c->nout++] = path;
	return 0;
}

static int parse_top(struct cli *c, const char *s)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v < 1 || v > 100000)
		return bad("--top wants a number of functions from 1 to 100000, not '%s'", s);
	c->top = v;
	c->has_top = 1;
	return 0;
}

/* The option getopt just complained about, as the user typed it. */
static const char *option_name(char **argv)
{
	static char short_opt[3];
	if (optopt > ' ' && optopt < 127) {
		snprintf(short_opt, sizeof(short_opt), "-%c", optopt);
		return short_opt;
	}
	return argv[optind - 1] ? argv[optind - 1] : "?";
}

/* One option; 0, 2 for bad usage, 3 for --help. */
static int option(struct cli *c, int opt, char **argv)
{
	switch (opt) {
	case 'o': return add_output(c, optarg);
	case OPT_FORMAT: c->format = optarg; return 0;
	case OPT_TOP: return parse_top(c, optarg);
	case OPT_RAW: c->raw = 1; return 0;
	case OPT_TITLE: c->o.title = optarg; return 0;
	case OPT_SUBTITLE: c->o.subtitle = optarg; return 0;
	case OPT_COUNTNAME: c->o.countname = optarg; c->countname_given = 1; return 0;
	case OPT_INVERTED: c->o.inverted = 1; return 0;
	case OPT_REVERSE: c->o.reverse = 1; return 0;
	case OPT_HEAVIEST: c->o.heaviest_first = 1; return 0;
	case OPT_WIDTH:
		if (render_parse_width(optarg, &c->o.width) < 0)
			return bad("--width wants a whole number of pixels from 100 to 100000, not '%s'", optarg);
		return 0;
	case OPT_MINWIDTH:
		if (render_parse_minwidth(optarg, &c->o) < 0)
			return bad("--minwidth wants pixels (0.1) or a percentage (0.05%%), not '%s'", optarg);
		return 0;
	case 'h': return 3;
	case ':': return bad("option '%s' needs a value", option_name(argv));
	default: return bad("unknown option '%s'", option_name(argv));
	}
}

/* ARGV[0] is "diff"; options may come before or after the two inputs. */
static int parse_args(struct cli *c, int argc, char **argv)
{
	int opt, rc;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:h", long_opts, NULL)) != -1)
		if ((rc = option(c, opt, argv)))
			return rc;
	if (c->format)
		return bad("--format %s must come before the -o it applies to", c->format);
	if (argc - optind != 2)
		return bad("%s", argc - optind < 2 ? "give two profiles: lua-flame diff BEFORE AFTER"
			   : "two profiles only: BEFORE and AFTER");
	c->in[0] = argv[optind];
	c->in[1] = argv[optind + 1];
	if (!strcmp(c->in[0], "-") && !strcmp(c->in[1], "-"))
		return bad("%s", "only one of BEFORE and AFTER can be standard input ('-')");
	if (!c->nout && !c->has_top)
		return add_output(c, "diff.svg");
	for (size_t i = 0; i < c->nout; i++)
		if (c->has_top && !strcmp(c->out[i], "-"))
			return bad("%s", "--top and -o - would both write to standard output: give -o a file name");
	return 0;
}

/* Folded text, or gzipped pprof when the input starts with gzip's magic byte; UNIT gets the
 * unit a pprof file names for its values. */
static int read_profile(struct flame *f, const char *path, char unit[32])
{
	int from_stdin = !strcmp(path, "-");
	const char *name = from_stdin ? "standard input" : path;
	FILE *in = from_stdin ? stdin : fopen(path, "rb");
	char err[256] = "";
	size_t ignored = 0;
	if (!in) {
		fprintf(stderr, WHO ": cannot open %s: %s; give a folded or .pb.gz file written by lua-flame\n",
			path, strerror(errno));
		return 2;
	}
	int first = getc(in), rc;
	if (first != EOF)
		ungetc(first, in);
	if (first == 0x1f) {
		rc = pprof_read_unit(f, in, unit, 32, err, sizeof(err));
	} else {
		rc = flame_read_folded(f, in, &ignored);
		snprintf(err, sizeof(err), "%s", strerror(errno));
	}
	if (!from_stdin)
		fclose(in);
	if (rc < 0) {
		fprintf(stderr, WHO ": reading %s failed: %s\n", name, err);
		return 1;
	}
	if (ignored)
		fprintf(stderr, WHO ": %s: ignored %zu malformed line%s (expected \"frame;frame;... COUNT\")\n",
			name, ignored, ignored == 1 ? "" : "s");
	if (!flame_total(f))
		fprintf(stderr, WHO ": %s has no samples\n", name);
	return 0;
}

static int write_one(const struct flame_diff *d, const struct cli *c, size_t i, FILE *out)
{
	if (c->kind[i] == OUT_FOLDED)
		return diff_write_folded(d, out);
	struct flame_opts o = c->o;
	o.diff = d;
	return flame_write_svg(d->after, &o, out);
}

/* Through a temporary file renamed into place, so a failure leaves no half output. */
static int write_output(const struct flame_diff *d, const struct cli *c, size_t i)
{
	const char *path = c->out[i];
	if (!strcmp(path, "-"))
		return write_one(d, c, i, stdout) < 0 || fflush(stdout) ? 1 : 0;
	mode_t mask = umask(0);
	umask(mask);
	struct outfile of;
	char err[4300];
	if (outfile_open(&of, path, 0666 & ~mask, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s; choose another place with -o\n", err);
		return 1;
	}
	if (write_one(d, c, i, of.f) < 0) {
		fprintf(stderr, WHO ": writing %s failed: %s\n", path, strerror(errno));
		outfile_abort(&of);
		return 1;
	}
	if (outfile_commit(&of, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", err);
		return 1;
	}
	return 0;
}

/* Two heap snapshots' pprof files count bytes, and say so: the counts are named after them
 * unless --countname says otherwise. A recording's samples ("count") keep the default. */
static void countname_from_units(struct cli *c)
{
	if (!c->countname_given && c->unit[0][0] && !strcmp(c->unit[0], c->unit[1]) && strcmp(c->unit[0], "count"))
		c->o.countname = c->unit[0];
}

static void default_subtitle(struct cli *c, const struct flame *before, const struct flame *after)
{
	if (c->o.subtitle)
		return;
	snprintf(c->subtitle, sizeof(c->subtitle), "BEFORE %.200s: %" PRIu64 " %s; AFTER %.200s: %" PRIu64
		 " %s; colours: change in %s%s", c->in[0], flame_total(before), c->o.countname, c->in[1],
		 flame_total(after), c->o.countname, c->raw ? "" : "share of all ", c->o.countname);
	c->o.subtitle = c->subtitle;
}

/* --reverse applies to both trees before they are matched, so svg.c must not redo it. */
static int reverse_both(struct cli *c, struct flame **t)
{
	if (!c->o.reverse)
		return 0;
	for (int i = 0; i < 2; i++) {
		struct flame *r = flame_reversed(t[i]);
		if (!r)
			return -1;
		flame_free(t[i]);
		t[i] = r;
	}
	c->o.reverse = 0;
	return 0;
}

static int run(struct cli *c, struct flame **t)
{
	struct flame_diff d;
	int rc = 0;
	for (int i = 0; i < 2 && rc == 0; i++)
		rc = read_profile(t[i], c->in[i], c->unit[i]);
	if (rc)
		return rc;
	countname_from_units(c);
	if (reverse_both(c, t) < 0 || diff_build(&d, t[0], t[1], c->raw) < 0) {
		fprintf(stderr, WHO ": out of memory\n");
		return 1;
	}
	/* bytes are what a heap snapshot counts: its frames read in the heap's grammar */
	d.heap = !strcmp(c->o.countname, "bytes");
	d.unit = c->o.countname;
	default_subtitle(c, t[0], t[1]);
	for (size_t i = 0; i < c->nout && rc == 0; i++)
		rc = write_output(&d, c, i);
	if (rc == 0 && c->has_top && diff_write_top(&d, c->top, stdout) < 0) {
		fprintf(stderr, WHO ": writing the table failed: %s\n", strerror(errno));
		rc = 1;
	}
	diff_free(&d);
	return rc;
}

int diff_main(int argc, char **argv)
{
	struct cli c = { 0 };
	flame_opts_default(&c.o);
	c.o.title = "Differential Flame Graph";
	int rc = parse_args(&c, argc, argv);
	if (rc == 3) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (rc)
		return rc;
	struct flame *t[2] = { flame_new(), flame_new() };
	if (!t[0] || !t[1]) {
		fprintf(stderr, WHO ": out of memory\n");
		rc = 1;
	} else {
		rc = run(&c, t);
	}
	flame_free(t[0]);
	flame_free(t[1]);
	return rc;
}
