/* `lua-flame heap -p PID[,PID...] [--children] [-o FILE]...`: its options and outputs. The
 * outputs are a recording's formats with bytes for counts: heap.svg and heap.folded unless -o
 * says otherwise; pprof with inuse_objects and inuse_space sample types. With --every, a
 * numbered series of them (heap_series.c names the files). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "children.h"
#include "heap_series.h"
#include "heap_snapshot.h"
#include "output.h"
#include "proc.h"
#include "util.h"

#define HEAP_MAX_PIDS 256
#define HEAP_MAX_PATH 4096

static const char heap_usage[] =
	"Usage: lua-flame heap -p PID[,PID...] [--children] [-o FILE]... [options]\n"
	"       lua-flame heap --every SECONDS [-d SECONDS] -p PID... [-o FILE]... [options]\n"
	"\n"
	"Takes a snapshot of every Lua VM in the processes and writes a flame graph whose\n"
	"widths are bytes: each object the VM counts stands under the path by which it is\n"
	"first reached from the VM's roots (globals, registry, thread stacks, upvalues).\n"
	"The processes are stopped only while their memory is copied.\n"
	"\n"
	"  -p, --pid PID[,PID...]  processes to snapshot\n"
	"      --children          also their children (nginx workers under the master)\n"
	"      --pids              root frame 'name-PID' instead of 'name'\n"
	"      --max-pause SECONDS longest a process may stay stopped while its memory is\n"
	"                          copied (default 1); past it it is released and the\n"
	"                          snapshot fails\n"
	"  -o, --output FILE       output file, repeatable; format from the extension (.svg,\n"
	"                          .folded, .pb.gz, .speedscope.json); '-' writes folded\n"
	"                          stacks to stdout (default: heap.svg and heap.folded)\n"
	"      --format FMT        format of the next -o, whatever its extension\n"
	"      --every SECONDS     a series: a snapshot at once, then one every SECONDS, each\n"
	"                          in every output with its number before the extension\n"
	"                          (heap.svg: heap-001.svg, heap-002.svg...; x.pb.gz:\n"
	"                          x-001.pb.gz); until -d has passed, or Ctrl-C or SIGTERM,\n"
	"                          which end it once the snapshot in progress is written\n"
	"  -d, --duration SECONDS  with --every: how long the series lasts (--every 10 -d 60\n"
	"                          takes 7 snapshots)\n"
	"      --output-mode MODE  permissions of the files written, octal (default 0600)\n"
	"  -q, --quiet             only errors\n"
	"\n"
	"Frames: the process, then one per step of the path: a table's string key as it is,\n"
	"[n] for every numeric key and the array part, 'local NAME' for a variable of a\n"
	"thread's stack, 'upvalue NAME' for a closure's upvalue, [registry], [main thread],\n"
	"[metatable], [keys], [constants], [protos], [debug], [traces], [stack]; the leaf\n"
	"is the object's type ([table], [string], [function], [C function], [userdata],\n"
	"[thread], [proto], [upvalue], [cdata], [trace]). [unreached] holds objects the VM\n"
	"counts that no path reaches (garbage not yet collected); [vm] the VM's own\n"
	"structures.\n"
	"\n"
	"A series ends early when a snapshot of it fails (a process exited): the files of\n"
	"the snapshots before it stay, and the exit status is 0 if there was one. Compare\n"
	"two of them with lua-flame diff (--raw for bytes rather than shares):\n"
	"  lua-flame heap -p 4242 --every 60 -d 600 -o heap.pb.gz\n"
	"  lua-flame diff --raw --top 10 heap-001.pb.gz heap-011.pb.gz\n";

struct heap_cli {
	struct heap_opts o;
	pid_t pids[HEAP_MAX_PIDS];
	int npids, children;
	struct output outs[OUTPUTS_MAX];
	int nouts;
	unsigned mode;
	double every, duration;   /* seconds; 0: one snapshot, no end */
};

enum { OPT_CHILDREN = 256, OPT_PIDS, OPT_MAX_PAUSE, OPT_FORMAT, OPT_OUT_MODE, OPT_EVERY };

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "lua-flame heap: %s%s%s\nTry 'lua-flame heap --help'.\n", msg, arg ? " " : "", arg ? arg : "");
	return 2;
}

static int add_pids(struct heap_cli *c, const char *list)
{
	for (const char *s = list; *s;) {
		char *end;
		errno = 0;
		long v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > 0x3fffffff || (*end && *end != ','))
			return usage_error("-p takes process IDs separated by commas, not", list);
		if (c->npids == HEAP_MAX_PIDS)
			return usage_error("too many processes; at most 256 with", "-p");
		c->pids[c->npids++] = (pid_t)v;
		s = *end ? end + 1 : end;
	}
	return 0;
}

static int add_out(struct heap_cli *c, const char *path, const char **format)
{
	enum out_format f = output_format_for(path, *format);
	if (f == OUT_UNKNOWN || f == OUT_CALLGRIND)
		return usage_error("cannot tell a heap output format (.svg, .folded, .pb.gz, .speedscope.json) from",
				   *format ? *format : path);
	if (c->nouts == OUTPUTS_MAX)
		return usage_error("too many outputs; at most 16 with", "-o");
	c->outs[c->nouts++] = (struct output){ path, f };
	*format = NULL;
	return 0;
}

static int parse_value(struct heap_cli *c, int opt, const char *arg, const char **format)
{
	char *end;
	switch (opt) {
	case 'p': return add_pids(c, arg);
	case 'o': return add_out(c, arg, format);
	case OPT_FORMAT: *format = arg; return 0;
	case OPT_MAX_PAUSE:
		c->o.max_pause = strtod(arg, &end);
		return *end || !(c->o.max_pause > 0 && c->o.max_pause <= 60) ?
			usage_error("--max-pause takes seconds, more than 0 and at most 60, not", arg) : 0;
	case OPT_OUT_MODE:
		c->mode = (unsigned)strtoul(arg, &end, 8);
		return *end || c->mode > 0777 ? usage_error("--output-mode takes octal permissions, not", arg) : 0;
	case OPT_EVERY:
		c->every = strtod(arg, &end);
		return end == arg || *end || !(c->every >= 0.1 && c->every <= 86400) ?
			usage_error("--every takes seconds, from 0.1 to 86400, not", arg) : 0;
	case 'd':
		c->duration = strtod(arg, &end);
		return end == arg || *end || !(c->duration > 0 && c->duration <= 31 * 86400.0) ?
			usage_error("-d takes seconds, more than 0 and at most 31 days, not", arg) : 0;
	default: return usage_error("unknown option", NULL);
	}
}

/* -d alone would be a single snapshot taken late, or a series at a rate made up: neither is
 * what was asked, so say what to write. */
static int check_series(const struct heap_cli *c)
{
	if (c->duration && !c->every)
		return usage_error("-d is the length of a series: give --every SECONDS with it (one snapshot "
				   "takes no -d)", NULL);
	for (int i = 0; c->every && i < c->nouts; i++)
		if (!strcmp(c->outs[i].path, "-"))
			return usage_error("--every writes numbered files: '-' (standard output) cannot be one;",
					   "give -o a file name");
	return 0;
}

static int parse(struct heap_cli *c, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, 0, 'p' }, { "output", required_argument, 0, 'o' },
		{ "children", no_argument, 0, OPT_CHILDREN }, { "pids", no_argument, 0, OPT_PIDS },
		{ "max-pause", required_argument, 0, OPT_MAX_PAUSE }, { "format", required_argument, 0, OPT_FORMAT },
		{ "output-mode", required_argument, 0, OPT_OUT_MODE }, { "quiet", no_argument, 0, 'q' },
		{ "every", required_argument, 0, OPT_EVERY }, { "duration", required_argument, 0, 'd' },
		{ "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
	const char *format = NULL;
	int opt, rc;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:p:o:d:qh", opts, NULL)) != -1) {
		if (opt == 'h') {
			fputs(heap_usage, stdout);
			exit(0);
		}
		if (opt == ':' || opt == '?')
			return usage_error(opt == ':' ? "this option needs a value:" : "unknown option", argv[optind - 1]);
		rc = opt == OPT_CHILDREN ? (c->children = 1, 0) : opt == OPT_PIDS ? (c->o.pid_roots = 1, 0) :
		     opt == 'q' ? (lf_quiet = 1, 0) : parse_value(c, opt, optarg, &format);
		if (rc)
			return rc;
	}
	if (optind < argc)
		return usage_error("unexpected argument", argv[optind]);
	if (!c->npids)
		return usage_error("no target: lua-flame heap -p PID", NULL);
	if (format)
		return usage_error("--format must come before the -o it applies to:", format);
	if (!c->nouts) {
		c->outs[c->nouts++] = (struct output){ "heap.svg", OUT_SVG };
		c->outs[c->nouts++] = (struct output){ "heap.folded", OUT_FOLDED };
	}
	return check_series(c);
}

static void add_children(struct heap_cli *c)
{
	struct child_scan cs = { 0 };
	pid_t kids[HEAP_MAX_PIDS];
	size_t n = children_scan(&cs, c->pids, (size_t)c->npids, kids, HEAP_MAX_PIDS - (size_t)c->npids);
	for (size_t i = 0; i < n; i++)
		c->pids[c->npids++] = kids[i];
	children_free(&cs);
}

static void describe(const struct heap_cli *c, struct profile *p)
{
	proc_comm(c->pids[0], p->command, sizeof(p->command));
	size_t len = 0;
	for (int i = 0; i < c->npids && len + 16 < sizeof(p->pids); i++)
		len += (size_t)snprintf(p->pids + len, sizeof(p->pids) - len, "%s%d", i ? "," : "", (int)c->pids[i]);
	p->heap = 1;
	/* the graph is a moment of the process: the time says which, in a ticket as in a series */
	time_t now = time(NULL);
	struct tm tm;
	if (gmtime_r(&now, &tm))
		strftime(p->taken, sizeof(p->taken), "%Y-%m-%d %H:%M:%S UTC", &tm);
}

/* One snapshot of every process into p; the processes it could take, and the worst status in
 * *worst. */
static int snapshot_all(const struct heap_cli *c, struct profile *p, int *worst)
{
	int done = 0;
	*worst = 0;
	profile_init(p);
	describe(c, p);
	for (int i = 0; i < c->npids; i++) {
		int rc = heap_snapshot(c->pids[i], &c->o, p);
		done += rc == 0;
		*worst = rc > *worst ? rc : *worst;
	}
	return done;
}

static int single(const struct heap_cli *c)
{
	struct profile p;
	int worst, done = snapshot_all(c, &p, &worst);
	if (!done) {
		profile_free(&p);
		return worst ? worst : 1;
	}
	if (output_write_all(c->outs, c->nouts, &p, c->mode, NULL))
		worst = 1;
	profile_free(&p);
	return worst;
}

/* Snapshot K's names of every output, in names[i] for c->outs[i]. */
static int number_outputs(const struct heap_cli *c, unsigned k, char (*names)[HEAP_MAX_PATH], struct output *outs)
{
	for (int i = 0; i < c->nouts; i++) {
		if (heap_series_name(c->outs[i].path, k, names[i], HEAP_MAX_PATH)) {
			warnx_lf("%s: the name is too long to take a snapshot's number", c->outs[i].path);
			return -1;
		}
		outs[i] = (struct output){ names[i], c->outs[i].fmt };
	}
	return 0;
}

/* Snapshot K of a series, written: 0; 1 when an output could not be written; minus the
 * worst status when a process could not be taken, which writes nothing (a snapshot without
 * one of the processes would read as its memory gone). */
static int series_one(const struct heap_cli *c, unsigned k)
{
	static char names[OUTPUTS_MAX][HEAP_MAX_PATH];
	struct output outs[OUTPUTS_MAX];
	struct profile p;
	int worst, rc = 0;
	if (number_outputs(c, k, names, outs))
		return 1;
	if (snapshot_all(c, &p, &worst) < c->npids) {
		profile_free(&p);
		return -(worst ? worst : 1);
	}
	size_t t = strlen(p.taken);
	snprintf(p.taken + t, sizeof(p.taken) - t, ", snapshot %u", k);
	if (output_write_all(outs, c->nouts, &p, c->mode, NULL))
		rc = 1;
	profile_free(&p);
	if (!rc)
		info_lf("snapshot %u: %s%s", k, names[0], c->nouts > 1 ? " and the other outputs" : "");
	return rc;
}

static unsigned planned(const struct heap_cli *c)
{
	return c->duration ? (unsigned)(c->duration / c->every + 1e-9) + 1 : 0;
}

static void say_end(unsigned k, int rc, unsigned written)
{
	if (rc < 0 && written)
		warnx_lf("snapshot %u failed (above): the series ends with the %u snapshot%s before it", k, written,
			 written == 1 ? "" : "s");
	else if (rc > 0)
		warnx_lf("snapshot %u could not be written whole (above): the series ends there", k);
	else if (heap_series_stopped())
		info_lf("stopped by signal %d after %u snapshot%s", heap_series_stopped(), written,
			written == 1 ? "" : "s");
	else if (!rc)
		info_lf("series done: %u snapshots", written);
}

/* The snapshots at start, start + every, ... until -d has passed or a signal. Exit status 0
 * once a snapshot is written, but 1 when one could not be. */
static int series(const struct heap_cli *c)
{
	unsigned n = planned(c), k, written = 0;
	double start = now_sec();
	int rc = 0;
	heap_series_signals();
	for (k = 1; !n || k <= n; k++) {
		if (heap_series_wait(start + (k - 1) * c->every))
			break;
		if ((rc = series_one(c, k)))
			break;
		written++;
		if (heap_series_stopped())
			break;
	}
	say_end(k, rc, written);
	return rc > 0 ? 1 : written ? 0 : -rc;
}

int heap_main(int argc, char **argv)
{
	static struct heap_cli c;
	c.o.max_pause = 1.0;
	c.mode = 0600;
	int rc = parse(&c, argc, argv);
	if (rc)
		return rc;
	for (int i = 0; i < c.nouts; i++) {
		char first[HEAP_MAX_PATH];
		const char *path = c.outs[i].path;
		if (c.every && heap_series_name(path, 1, first, sizeof(first)) == 0)
			path = first;
		if (output_check_writable(path))
			return 2;
	}
	if (c.children)
		add_children(&c);
	return c.every ? series(&c) : single(&c);
}
