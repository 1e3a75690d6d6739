/* lua-flame's command line: `record` (the default), `top`, `dump`, `render`, `diff` and `heap`. Parses
 * options, validates them with messages that say what to do, and hands over to the
 * engine. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <zlib.h>

#include "aggregate.h"
#include "arch.h"
#include "build_id.h"
#include "diff.h"
#include "dump.h"
#include "kfeatures.h"
#include "flame.h"
#include "heap_snapshot.h"
#include "record.h"
#include "top_view.h"
#include "util.h"

static const char usage_text[] =
	"Usage: lua-flame [record] -p PID[,PID...] [-d SECONDS] [-F HZ] [-o FILE]... [options]\n"
	"       lua-flame [record] [options] -- COMMAND [ARGS...]\n"
	"       lua-flame dump -p PID\n"
	"       lua-flame top -p PID[,PID...] [--children] [-F HZ] [-d SECONDS]\n"
	"       lua-flame render [-o OUT.svg] [options] [IN.folded | -]\n"
	"       lua-flame diff [-o OUT.svg|OUT.folded]... [--top N] [options] BEFORE AFTER\n"
	"       lua-flame heap -p PID[,PID...] [--children] [-o FILE]... (lua-flame heap --help)\n"
	"\n"
	"Samples running Lua or LuaJIT processes (their Lua and C code together) with eBPF\n"
	"and writes a flame graph. No restart, no code change, no debug symbols needed.\n"
	"\n"
	"What to profile:\n"
	"  -p, --pid PID[,PID...]  processes to profile (every thread of each); several\n"
	"                          PIDs go into one profile, each stack rooted at its\n"
	"                          process name\n"
	"      --pids              root frame 'name-PID' instead of 'name', to tell\n"
	"                          processes of the same name apart\n"
	"      --children          also profile the children of each target, those\n"
	"                          running now and those started while recording\n"
	"  -- COMMAND [ARGS...]    start COMMAND and profile it from its first\n"
	"                          instruction to its exit; lua-flame then exits with\n"
	"                          COMMAND's exit status\n"
	"\n"
	"How long and how often:\n"
	"  -d, --duration SECONDS  stop after SECONDS (default: until Ctrl-C, SIGTERM or\n"
	"                          until every target has exited; outputs are written\n"
	"                          in every case, a second Ctrl-C quits at once)\n"
	"  -F, --frequency HZ      samples per second per CPU, 1-10000 (default 99)\n"
	"      --mode cpu|wall|alloc\n"
	"                          cpu (default): where CPU time goes; wall: every\n"
	"                          thread at the rate whether it runs or waits, the\n"
	"                          wait shown as [off-CPU: FUNCTION] above the frame\n"
	"                          that waited (sleeps, pipes, sockets, os.execute);\n"
	"                          alloc: who allocates Lua memory, in bytes: every\n"
	"                          allocation of each VM in 200 ms windows at random\n"
	"                          moments, paced to slow the target about 4%\n"
	"      --max-stacks N      distinct stacks the kernel buffers between two drains\n"
	"                          (each second, or once a quarter of them are made),\n"
	"                          64-4194304 (default 8192); raise it\n"
	"                          when lua-flame reports lost samples\n"
	"      --max-profile-mb MB memory for the profile's distinct stacks (default\n"
	"                          1024); past it new stacks count under their process\n"
	"                          as [profile: memory limit], with a warning\n"
	"      --btf FILE          the kernel's BTF from FILE, for kernels without\n"
	"                          /sys/kernel/btf/vmlinux (also LUA_FLAME_BTF=FILE)\n"
	"\n"
	"Outputs:\n"
	"  -o, --output FILE       output file; repeatable; format from the extension:\n"
	"                          .svg (flame graph), .folded (flamegraph.pl input),\n"
	"                          .pb.gz (pprof), .speedscope.json, .callgrind or\n"
	"                          callgrind.out.*; '-' writes folded stacks to stdout\n"
	"                          (default: perf.svg and perf.folded)\n"
	"      --output-mode MODE  permissions of the files written, octal (default 0600:\n"
	"                          only their owner reads them; 0644 for everyone)\n"
	"      --format FMT        format of the next -o (folded, svg, pprof, speedscope,\n"
	"                          callgrind), whatever its extension\n"
	"      --threads           add a per-thread level 'threadname-TID' below the\n"
	"                          process\n"
	"      --lines             Lua frames show the line being executed, not where the\n"
	"                          function is defined (splits a function by line)\n"
	"      --addresses         a native frame without a symbol shows its own address\n"
	"                          (FILE+0xADDR), not the start of its function from\n"
	"                          .eh_frame (FILE+0xSTART: one box per function)\n"
	"      --no-kernel         leave out kernel frames (--kernel: keep them, the\n"
	"                          default)\n"
	"\n"
	"Messages:\n"
	"  -q, --quiet             no progress messages and no status line: errors,\n"
	"                          warnings and the final summary only\n"
	"      --stats             print unwinding statistics at the end\n"
	"  -h, --help              this help\n"
	"  -V, --version           version, libbpf version and build information\n"
	"\n"
	"While recording on a terminal, a status line shows the time, samples taken,\n"
	"samples lost and the Lua runtime found. At the end a summary says how many\n"
	"stacks were complete and how to open each output.\n"
	"\n"
	"diff compares two profiles (folded or lua-flame's .pb.gz): a flame graph of\n"
	"AFTER coloured by each frame's change in share, 'stack before after' text, and\n"
	"with --top a table of the functions that changed most; see lua-flame diff --help.\n"
	"\n"
	"top shows the busiest functions of running processes, redrawn every second:\n"
	"%SELF and %TOTAL of the last second's samples, CPU seconds since the start, and\n"
	"the kind of each frame (Lua, JIT, C, kernel). Keys: s sort by self, t by total,\n"
	"l Lua functions only (a sample counts for the innermost Lua function, with the\n"
	"C it called), q quit. Through a pipe it prints a block of lines a second.\n"
	"\n"
	"dump prints what every thread of PID is running now, one frame per line from\n"
	"the root, from 0.2 s of samples at 999 Hz (-d and -F change that). Threads that\n"
	"did not run on a CPU meanwhile are listed with their state.\n"
	"\n"
	"Examples:\n"
	"  lua-flame -p 4242 -d 30                 # perf.svg and perf.folded after 30 s\n"
	"  lua-flame -p 4242 -o cpu.pb.gz          # until Ctrl-C; for go tool pprof\n"
	"  lua-flame -p $(pgrep -d, nginx) --pids  # every nginx process, told apart\n"
	"  lua-flame -p $(pgrep -o nginx) --children -d 10   # master and its workers\n"
	"  lua-flame -o run.svg -- lua5.4 job.lua  # a whole run of a script\n"
	"  lua-flame -p 4242 --threads -F 999 -d 5 # per thread, at a higher rate\n"
	"  lua-flame -p 4242 --mode wall -d 10     # where the time goes, waits too\n"
	"  lua-flame -p 4242 --mode alloc -d 60    # who allocates the Lua memory\n"
	"  lua-flame dump -p 4242                  # what is it doing right now?\n"
	"  lua-flame top -p $(pgrep -o nginx) --children   # live: the busiest functions\n"
	"  lua-flame render -o old.svg old.folded  # flame graph of any folded file\n"
	"  lua-flame diff -o diff.svg --top 10 before.folded after.folded\n"
	"                                          # what grew, what shrank (red, blue)\n"
	"\n"
	"Exit status: 0 success (also with no samples), 1 profiling failed, 2 bad usage\n"
	"or unusable target or environment; with -- COMMAND, COMMAND's exit status.\n"
	"Needs root, or CAP_BPF + CAP_PERFMON + CAP_SYS_PTRACE, on Linux with BTF.\n"
	"See lua-flame(1).\n";

enum { OPT_FORMAT = 256, OPT_THREADS, OPT_NO_KERNEL, OPT_KERNEL, OPT_STATS, OPT_MAX_STACKS, OPT_LINES,
       OPT_PIDS, OPT_CHILDREN, OPT_BTF, OPT_ADDRESSES, OPT_OUTPUT_MODE, OPT_MAX_PROFILE_MB, OPT_MODE };

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
	{ "max-profile-mb", required_argument, NULL, OPT_MAX_PROFILE_MB },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "addresses", no_argument, NULL, OPT_ADDRESSES },
	{ "pids", no_argument, NULL, OPT_PIDS },
	{ "children", no_argument, NULL, OPT_CHILDREN },
	{ "btf", required_argument, NULL, OPT_BTF },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "output-mode", required_argument, NULL, OPT_OUTPUT_MODE },
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
	if (o->nouts == OUTPUTS_MAX)
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
	printf("lua-flame %s\n", LUA_FLAME_VERSION);
	printf("libbpf %u.%u, libelf (elfutils), zlib %s, musl libc: all statically linked\n",
	       libbpf_major_version(), libbpf_minor_version(), zlibVersion());
	printf("built from commit %s with %s for " LF_ARCH_NAME "; BPF programs built in (CO-RE: needs a kernel with BTF)\n",
	       LUA_FLAME_BUILD, "gcc " __VERSION__);
	char k[256];
	kf_describe(k, sizeof(k));
	printf("%s\n", k);
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

/* One option of record or dump; returns 0, or an exit status. */
static int hz_given; /* -F was given: alloc mode's default rate is not 99 */

/* Alloc mode paces its own windows (at most one a second, and the probes in the target's code
 * about 4% of the time: cmd/kernel/alloc_windows.c), which -F would only pretend to set. */
static int check_alloc_rate(struct record_opts *o)
{
	if (!o->alloc)
		return 0;
	if (hz_given)
		return usage_error("%s", "--mode alloc paces itself and takes no -F: it opens a window of "
				   "200 ms at most once a second, spaced so that its probes slow an allocating thread "
				   "by about 4%");
	o->hz = 1;
	return 0;
}

static int parse_option(int c, char **argv, struct record_opts *o, const char **format)
{
	double v;
	int rc;
	switch (c) {
	case 'p': return parse_pids(o, optarg);
	case 'd':
		if (parse_number(optarg, 0.001, 1e7, &o->duration))
			return usage_error("invalid duration '%s': expected seconds, e.g. -d 30", optarg);
		return 0;
	case 'F':
		if (parse_number(optarg, 1, 10000, &v) || v != (int)v)
			return usage_error("invalid frequency '%s': expected a whole number of Hz from 1 to 10000",
					   optarg);
		o->hz = (int)v;
		hz_given = 1;
		return 0;
	case 'o': rc = add_output(o, optarg, *format); *format = NULL; return rc;
	case OPT_FORMAT: *format = optarg; return 0;
	case OPT_THREADS: o->threads = 1; return 0;
	case OPT_NO_KERNEL: o->kernel = 0; return 0;
	case OPT_KERNEL: o->kernel = 1; return 0;
	case OPT_STATS: o->stats = 1; return 0;
	case OPT_LINES: o->lines = 1; return 0;
	case OPT_ADDRESSES: o->addresses = 1; return 0;
	case OPT_PIDS: o->pid_roots = 1; return 0;
	case OPT_CHILDREN: o->children = 1; return 0;
	case OPT_BTF: o->btf = optarg; return 0;
	case OPT_MODE:
		if (strcmp(optarg, "cpu") && strcmp(optarg, "wall") && strcmp(optarg, "alloc"))
			return usage_error("invalid --mode '%s': expected cpu (where CPU time goes), wall (every "
					   "thread, running or waiting) or alloc (who allocates Lua memory)", optarg);
		o->wall = !strcmp(optarg, "wall");
		o->alloc = !strcmp(optarg, "alloc");
		return 0;
	case OPT_OUTPUT_MODE: {
		char *end;
		unsigned long m = strtoul(optarg, &end, 8);
		if (!*optarg || *end || m > 0777)
			return usage_error("invalid --output-mode '%s': expected octal permissions such as 0644", optarg);
		o->out_mode = (unsigned)m;
		return 0;
	}
	case OPT_MAX_STACKS:
		if (parse_number(optarg, 64, 1 << 22, &v))
			return usage_error("invalid --max-stacks '%s': expected 64 to 4194304", optarg);
		o->max_stacks = (unsigned)v;
		return 0;
	case OPT_MAX_PROFILE_MB:
		if (parse_number(optarg, 1, 1 << 20, &v))
			return usage_error("invalid --max-profile-mb '%s': expected 1 to 1048576", optarg);
		profile_set_limit((size_t)v << 20);   /* applies to every profile of the run */
		return 0;
	case 'q': lf_quiet = 1; return 0;
	case 'h': fputs(usage_text, stdout); exit(0);
	case 'V': print_version(); exit(0);
	case ':': return usage_error("option '%s' needs a value", option_name(argv));
	default: return usage_error("unknown option '%s'", option_name(argv));
	}
}

/* What is left after the options: nothing, or "-- COMMAND ARGS..." for record. */
static int parse_command(int argc, char **argv, struct record_opts *o)
{
	if (optind >= argc)
		return 0;
	if (strcmp(argv[optind - 1], "--"))
		return usage_error("unexpected argument '%s' (a command to start goes after '--')", argv[optind]);
	if (o->npids)
		return usage_error("%s", "give either -p PID or -- COMMAND, not both");
	o->command = argv + optind;
	return 0;
}

static int parse_record(int argc, char **argv, struct record_opts *o)
{
	const char *format = NULL;
	int c, rc;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:d:F:o:qhV", long_opts, NULL)) != -1)
		if ((rc = parse_option(c, argv, o, &format)))
			return rc;
	if ((rc = parse_command(argc, argv, o)))
		return rc;
	if (o->npids == 0 && !o->command)
		return usage_error("%s", "no target: give -p PID, or -- COMMAND to start one");
	if ((rc = check_alloc_rate(o)))
		return rc;
	if (format)
		return usage_error("--format %s must come before the -o it applies to", format);
	if (o->nouts)
		return 0;
	rc = add_output(o, "perf.svg", NULL);
	return rc ? rc : add_output(o, "perf.folded", NULL);
}

/* top takes the targets and the sampling knobs; it writes no file and starts no command. */
static int parse_top(int argc, char **argv, struct record_opts *o)
{
	const char *format = NULL;
	int c, rc;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:p:d:F:o:qhV", long_opts, NULL)) != -1) {
		if (c == 'o' || c == OPT_FORMAT)
			return usage_error("%s", "top shows the profile as it runs and writes no file; to keep "
					   "one, record it: lua-flame -p PID -o FILE");
		if (c == OPT_MODE)
			return usage_error("%s", "top shows CPU time; for wall-clock time record a profile: "
					   "lua-flame -p PID --mode wall");
		if ((rc = parse_option(c, argv, o, &format)))
			return rc;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s' (top watches running processes: give -p PID)",
				   argv[optind]);
	if (o->npids == 0)
		return usage_error("%s", "no target: lua-flame top -p PID");
	return 0;
}

/* dump takes -p PID and the sampling knobs; outputs, commands and children make no sense. */
static int parse_dump(int argc, char **argv, struct record_opts *o)
{
	const char *format = NULL;
	int c, rc;
	opterr = 0;
	o->duration = 0.2;
	o->hz = 999;
	while ((c = getopt_long(argc, argv, "+:p:d:F:o:qhV", long_opts, NULL)) != -1) {
		if (c == 'o' || c == OPT_FORMAT || c == OPT_CHILDREN || c == OPT_PIDS || c == OPT_MODE)
			return usage_error("dump prints to the terminal and takes no '%s' (that is for "
					   "recording a profile)", c == 'o' ? "-o" : c == OPT_MODE ? "--mode" : argv[optind - 1]);
		if ((rc = parse_option(c, argv, o, &format)))
			return rc;
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->npids != 1)
		return usage_error("%s", "dump needs exactly one process: lua-flame dump -p PID");
	o->threads = 1;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "render"))
		return render_main(argc - 2, argv + 2); /* it takes the arguments after "render" */
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);   /* argv[0] is "diff", for getopt */
	if (argc > 1 && !strcmp(argv[1], "heap"))
		return heap_main(argc - 1, argv + 1);
	static struct record_opts o = { .hz = 99, .kernel = 1, .out_mode = 0600 };
	o.btf = getenv("LUA_FLAME_BTF"); /* --btf overrides it */
	int dump = argc > 1 && !strcmp(argv[1], "dump"), top = argc > 1 && !strcmp(argv[1], "top");
	if (dump || top || (argc > 1 && !strcmp(argv[1], "record"))) {
		argv[1] = argv[0];
		argc--, argv++;
	}
	int rc = dump ? parse_dump(argc, argv, &o) : top ? parse_top(argc, argv, &o) : parse_record(argc, argv, &o);
	if (rc)
		return rc;
	return dump ? dump_run(&o) : top ? top_run(&o) : record_run(&o);
}
