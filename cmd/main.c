/* lua-flame's command line: `record` (the default), and `render`. Parses options,
 * validates them with messages that say what to do, and hands over to the engine. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "record.h"
#include "util.h"

static const char usage_text[] =
	"Usage: lua-flame [record] -p PID[,PID...] [-d SECONDS] [-F HZ] [-o FILE]... [options]\n"
	"       lua-flame render [-o OUT.svg] [options] [IN.folded | -]\n"
	"\n"
	"Samples a running Lua or LuaJIT process (and its C code) and writes a flame graph.\n"
	"\n"
	"Options:\n"
	"  -p, --pid PID[,PID...]  processes to profile (every thread of each)\n"
	"  -d, --duration SECONDS  stop after SECONDS (default: until Ctrl-C or the target exits)\n"
	"  -F, --frequency HZ      samples per second per CPU, 1-10000 (default 99)\n"
	"  -o, --output FILE       output file; repeatable; format from the extension:\n"
	"                          .folded (flamegraph.pl input), .svg, .pb.gz (pprof),\n"
	"                          .speedscope.json, .callgrind or callgrind.out.*\n"
	"                          (default: perf.svg and perf.folded)\n"
	"      --format FMT        format of the next -o (folded, svg, pprof, speedscope,\n"
	"                          callgrind)\n"
	"      --threads           add a per-thread level (thread name and TID)\n"
	"      --lines             Lua frames show the line being executed, not where the\n"
	"                          function is defined (splits a function by line)\n"
	"      --no-kernel         leave out kernel frames\n"
	"      --stats             print unwinding statistics at the end\n"
	"      --max-stacks N      distinct stacks buffered in the kernel per second (default 8192)\n"
	"  -q, --quiet             print only errors and the summary\n"
	"  -h, --help              this help\n"
	"  -V, --version           version and build information\n"
	"\n"
	"Examples:\n"
	"  lua-flame -p 4242 -d 30                 # perf.svg and perf.folded after 30 s\n"
	"  lua-flame -p 4242 -o cpu.pb.gz          # for go tool pprof, Pyroscope, Parca\n"
	"  lua-flame render -o old.svg old.folded  # flame graph of any folded file\n"
	"  lua-flame -p $(pgrep -d, nginx) -o nginx.folded\n"
	"\n"
	"Needs root, or CAP_BPF + CAP_PERFMON + CAP_SYS_PTRACE, on Linux with BTF.\n";

enum { OPT_FORMAT = 256, OPT_THREADS, OPT_NO_KERNEL, OPT_KERNEL, OPT_STATS, OPT_MAX_STACKS, OPT_LINES };

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'd' },
	{ "frequency", required_argument, NULL, 'F' },
	{ "output", required_argument, NULL, 'o' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "threads", no_argument, NULL, OPT_THREADS },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "stats", no_argument, NULL, OPT_STATS },
	{ "max-stacks", required_argument, NULL, OPT_MAX_STACKS },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ 0 },
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "lua-flame: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'lua-flame --help'.\n");
	return 2;
}

static int parse_pids(struct record_opts *o, const char *arg)
{
	const char *p = arg;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v <= 0 || v > 0x7fffffff || (*end && *end != ','))
			return usage_error("invalid PID list '%s': expected numbers separated by commas", arg);
		if (o->npids == MAX_TARGETS)
			return usage_error("too many PIDs in '%s'", arg);
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

static int parse_number(const char *arg, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (end == arg || *end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int add_output(struct record_opts *o, const char *path, const char *format)
{
	if (o->nouts == MAX_OUTPUTS)
		return usage_error("too many outputs (at most 16): %s", path);
	enum out_format f = output_format_for(path, format);
	if (f == OUT_UNKNOWN)
		return usage_error(format ? "unknown format '%s' (known: folded, svg, pprof, speedscope, "
				   "callgrind)"
				   : "cannot tell the format of '%s' from its extension (use .folded, .svg, "
				     ".pb.gz, .speedscope.json or .callgrind, or --format)", format ? format : path);
	o->outs[o->nouts++] = (struct output){ path, f };
	return 0;
}

static void print_version(void)
{
	printf("lua-flame %s (libbpf, libelf, zlib statically linked; built %s)\n", LUA_FLAME_VERSION,
	       __DATE__);
}

static int parse_record(int argc, char **argv, struct record_opts *o)
{
	const char *format = NULL;
	double v;
	int c, rc;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:d:F:o:qhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'p': if ((rc = parse_pids(o, optarg))) return rc; break;
		case 'd':
			if (parse_number(optarg, 0.001, 1e7, &o->duration))
				return usage_error("invalid duration '%s': expected seconds, e.g. -d 30", optarg);
			break;
		case 'F':
			if (parse_number(optarg, 1, 10000, &v) || v != (int)v)
				return usage_error("invalid frequency '%s': expected a whole number of Hz "
						   "from 1 to 10000", optarg);
			o->hz = (int)v;
			break;
		case 'o': if ((rc = add_output(o, optarg, format))) return rc; format = NULL; break;
		case OPT_FORMAT: format = optarg; break;
		case OPT_THREADS: o->threads = 1; break;
		case OPT_NO_KERNEL: o->kernel = 0; break;
		case OPT_KERNEL: o->kernel = 1; break;
		case OPT_STATS: o->stats = 1; break;
		case OPT_LINES: o->lines = 1; break;
		case OPT_MAX_STACKS:
			if (parse_number(optarg, 64, 1 << 22, &v))
				return usage_error("invalid --max-stacks '%s': expected 64 to 4194304", optarg);
			o->max_stacks = (unsigned)v;
			break;
		case 'q': lf_quiet = 1; break;
		case 'h': fputs(usage_text, stdout); exit(0);
		case 'V': print_version(); exit(0);
		case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->npids == 0)
		return usage_error("%s", "no target: give -p PID");
	if (format)
		return usage_error("--format %s must come before the -o it applies to", format);
	if (o->nouts)
		return 0;
	rc = add_output(o, "perf.svg", NULL);
	return rc ? rc : add_output(o, "perf.folded", NULL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "render"))
		return render_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "record")) {
		argv[1] = argv[0];
		argc--, argv++;
	}
	static struct record_opts o = { .hz = 99, .kernel = 1 };
	int rc = parse_record(argc, argv, &o);
	if (rc)
		return rc;
	return record_run(&o);
}
