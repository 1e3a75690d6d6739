/* `lua-flame render`: folded stacks in (a file or stdin), one self-contained SVG out.
 * Exit status 0 on success (an empty profile included), 1 when reading or writing
 * failed, 2 for bad usage; every error says what to do about it. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "flame.h"
#include "outfile.h"
#include "tree.h"

#define WHO "lua-flame render"

static const char usage_text[] =
	"usage: lua-flame render [options] [-o OUT.svg] [IN.folded | -]\n"
	"Draws a flame graph from folded stacks (\"frame;frame;... COUNT\" per line), read from\n"
	"IN.folded or standard input, into one self-contained SVG.\n"
	"  -o, --output FILE     where to write the SVG (default perf.svg; - for standard output)\n"
	"      --title TEXT      title (default \"Flame Graph\", \"Icicle Graph\" with --inverted)\n"
	"      --subtitle TEXT   second line, e.g. what was profiled\n"
	"      --width PIXELS    image width (default 1200)\n"
	"      --minwidth N[%]   leave out frames narrower than N pixels, or N percent of all\n"
	"                        samples with a % sign (default 0.1)\n"
	"      --countname NAME  what the counts are (default samples)\n"
	"      --inverted        icicle graph: root at the top\n"
	"      --reverse         merge stacks from the leaf up\n"
	"      --heaviest        order siblings by weight instead of by name\n"
	"  -h, --help            show this help\n";

struct cli {
	struct flame_opts o;
	const char *in, *out;
};

static int bad(const char *fmt, const char *arg)
{
	fprintf(stderr, WHO ": ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nRun 'lua-flame render --help' for the options.\n");
	return 2;
}

int render_parse_width(const char *s, int *width)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 100 || v > 100000)
		return -1;
	*width = (int)v;
	return 0;
}

int render_parse_minwidth(const char *s, struct flame_opts *o)
{
	char *end;
	double v = strtod(s, &end);
	int percent = *end == '%';
	if (end == s || (percent ? end[1] != '\0' : *end != '\0') || !isfinite(v) || v < 0)
		return -1;
	if (percent ? v > 100 : v > 100000)
		return -1;
	o->minwidth = v;
	o->minwidth_is_percent = percent;
	return 0;
}

/* Applies option NAME with VALUE (NULL for flags). Returns 0, or 2 after a message. */
static int apply(struct cli *c, const char *name, const char *value)
{
	if (!strcmp(name, "o") || !strcmp(name, "output"))
		c->out = value;
	else if (!strcmp(name, "title"))
		c->o.title = value;
	else if (!strcmp(name, "subtitle"))
		c->o.subtitle = value;
	else if (!strcmp(name, "countname"))
		c->o.countname = value;
	else if (!strcmp(name, "width")) {
		if (render_parse_width(value, &c->o.width) < 0)
			return bad("--width wants a whole number of pixels from 100 to 100000, not '%s'", value);
	} else if (!strcmp(name, "minwidth")) {
		if (render_parse_minwidth(value, &c->o) < 0)
			return bad("--minwidth wants pixels (0.1) or a percentage (0.05%%), not '%s'", value);
	}
	return 0;
}

static int takes_value(const char *name)
{
	static const char *const names[] = { "o", "output", "title", "subtitle", "countname", "width",
		"minwidth" };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

static int flag(struct cli *c, const char *name)
{
	if (!strcmp(name, "inverted"))
		c->o.inverted = 1;
	else if (!strcmp(name, "reverse"))
		c->o.reverse = 1;
	else if (!strcmp(name, "heaviest"))
		c->o.heaviest_first = 1;
	else
		return -1;
	return 0;
}

/* One option at ARGV[*I]; advances *I past its value. Returns 0, 2 (bad usage) or 3 (help). */
static int option(struct cli *c, int argc, char **argv, int *i)
{
	char name[32];
	const char *arg = argv[*i], *value = NULL;
	if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
		return 3;
	if (arg[1] == '-') {
		const char *eq = strchr(arg + 2, '=');
		size_t n = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		if (n >= sizeof(name))
			return bad("unknown option '%s'", arg);
		memcpy(name, arg + 2, n);
		name[n] = '\0';
		value = eq ? eq + 1 : NULL;
	} else {
		name[0] = arg[1];
		name[1] = '\0';
		value = arg[2] ? arg + 2 : NULL;
		if (strcmp(name, "o"))
			return bad("unknown option '%s'", arg);
	}
	if (!takes_value(name)) {
		if (value || flag(c, name) < 0)
			return bad(value ? "option '%s' takes no value" : "unknown option '%s'", arg);
		return 0;
	}
	if (!value) {
		if (*i + 1 >= argc)
			return bad("option '%s' needs a value", arg);
		value = argv[++*i];
	}
	return apply(c, name, value);
}

static int parse_args(struct cli *c, int argc, char **argv)
{
	int rest = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!rest && !strcmp(a, "--")) {
			rest = 1;
		} else if (!rest && a[0] == '-' && a[1]) {
			int rc = option(c, argc, argv, &i);
			if (rc)
				return rc;
		} else if (c->in) {
			return bad("one input file at most; '%s' is one too many", a);
		} else {
			c->in = a;
		}
	}
	return 0;
}

static int read_input(struct flame *f, const char *path, const struct flame_opts *o)
{
	int from_stdin = !path || !strcmp(path, "-");
	FILE *in = from_stdin ? stdin : fopen(path, "rb");
	size_t ignored = 0;
	if (!in) {
		fprintf(stderr, WHO ": cannot open %s: %s; give a folded file or '-' for standard input\n",
			path, strerror(errno));
		return 2;
	}
	int rc = flame_read_folded_for(f, in, &ignored, o);
	int err = errno;
	if (!from_stdin)
		fclose(in);
	if (rc < 0) {
		fprintf(stderr, WHO ": reading %s failed: %s\n", from_stdin ? "standard input" : path,
			strerror(err));
		return 1;
	}
	if (ignored)
		fprintf(stderr, WHO ": ignored %zu malformed line%s (expected \"frame;frame;... COUNT\")\n",
			ignored, ignored == 1 ? "" : "s");
	if (f->cut_stacks)
		fprintf(stderr, WHO ": %zu stack%s deeper than %d frames cut there: the graph shows their "
			"outermost %d frames\n", f->cut_stacks, f->cut_stacks == 1 ? "" : "s", FLAME_MAX_DEPTH,
			FLAME_MAX_DEPTH);
	if (f->saturated)
		fprintf(stderr, WHO ": the counts add up past %" PRIu64 ": totals stop there and shares are "
			"approximate\n", UINT64_MAX);
	return 0;
}

/* Writes to a temporary file beside OUT and renames it, so a failure leaves no half SVG. */
/* Files get the permissions the umask allows, as any file a user's tool creates; the
 * creation itself is safe in shared directories (outfile.c). */
static int write_output(const struct flame *f, const struct flame_opts *o, const char *out)
{
	/* musl's stdio buffer is 1 KiB: a write system call every few frames otherwise */
	static char buffer[256 << 10];
	if (!strcmp(out, "-")) {
		setvbuf(stdout, buffer, _IOFBF, sizeof(buffer));
		return flame_write_svg(f, o, stdout) < 0 || fflush(stdout) ? 1 : 0;
	}
	mode_t mask = umask(0);
	umask(mask);
	struct outfile of;
	char err[4300];
	if (outfile_open(&of, out, 0666 & ~mask, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s; choose another place with -o\n", err);
		return 1;
	}
	setvbuf(of.f, buffer, _IOFBF, sizeof(buffer));
	if (flame_write_svg(f, o, of.f) < 0) {
		fprintf(stderr, WHO ": writing %s failed: %s\n", out, strerror(errno));
		outfile_abort(&of);
		return 1;
	}
	if (outfile_commit(&of, err, sizeof(err))) {
		fprintf(stderr, WHO ": %s\n", err);
		return 1;
	}
	return 0;
}

int render_main(int argc, char **argv)
{
	struct cli c = { .out = "perf.svg" };
	flame_opts_default(&c.o);
	int rc = parse_args(&c, argc, argv);
	if (rc == 3) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (rc)
		return rc;
	if (!c.in && isatty(0))
		return bad("%s", "no input: give a folded file (lua-flame render perf.folded) or pipe one in");
	struct flame *f = flame_new();
	if (!f) {
		fprintf(stderr, WHO ": out of memory\n");
		return 1;
	}
	rc = read_input(f, c.in, &c.o);
	if (rc == 0) {
		if (!flame_total(f))
			fprintf(stderr, WHO ": no samples in the input; the SVG says so\n");
		rc = write_output(f, &c.o, c.out);
	}
	flame_free(f);
	return rc;
}
