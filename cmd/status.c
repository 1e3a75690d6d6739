/* What lua-flame tells the person running it about a recording: a live status line on
 * stderr (only on a terminal; redrawn in place with \r about once a second) and the
 * summary at the end, with how to open each output. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lua.h"
#include "stacks.h"
#include "lua_merge.h"
#include "safe_name.h"
#include "status.h"
#include "util.h"

static int enabled, shown;

void status_init(int wanted)
{
	enabled = wanted && isatty(STDERR_FILENO);
	shown = 0;
}

int status_enabled(void)
{
	return enabled;
}

static unsigned term_width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

void status_format(const struct status_info *in, char *buf, unsigned size)
{
	char when[48], lua[96];
	if (in->duration > 0)
		snprintf(when, sizeof(when), "%.0fs / %gs", in->elapsed, in->duration);
	else
		snprintf(when, sizeof(when), "%.0fs (Ctrl-C stops)", in->elapsed);
	if (!in->nlua)
		snprintf(lua, sizeof(lua), "no Lua found yet");
	else if (in->nprocs > 1)
		snprintf(lua, sizeof(lua), "%s in %d of %d processes", in->lua, in->nlua, in->nprocs);
	else
		snprintf(lua, sizeof(lua), "%s", in->lua);
	snprintf(buf, size, "lua-flame: %s, %llu samples, %llu lost, %s", when,
		 (unsigned long long)in->samples, (unsigned long long)in->lost, lua);
	safe_name_fix(buf, size, SAFE_TERMINAL);   /* the runtime's name is read from the target */
}

void status_show(const struct status_info *in)
{
	if (!enabled)
		return;
	char line[256];
	status_format(in, line, sizeof(line));
	unsigned w = term_width() - 1; /* a line that wraps cannot be redrawn with \r */
	if (w < sizeof(line))
		line[w] = 0;
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	shown = 1;
}

void status_clear(void)
{
	if (!shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	shown = 0;
}

const char *status_open_hint(enum out_format f)
{
	switch (f) {
	case OUT_SVG: return "open it in a web browser";
	case OUT_FOLDED: return "lua-flame render -o flame.svg FILE, or flamegraph.pl FILE";
	case OUT_PPROF: return "go tool pprof -http=: FILE";
	case OUT_SPEEDSCOPE: return "drop it on https://www.speedscope.app";
	case OUT_CALLGRIND: return "kcachegrind FILE, or callgrind_annotate FILE";
	default: return "";
	}
}

/* One line per output, "wrote PATH: how to open it". */
static void print_outputs(const struct record_opts *o, const int *ok)
{
	for (int i = 0; i < o->nouts; i++) {
		const char *path = o->outs[i].path;
		if (!ok[i] || !strcmp(path, "-"))
			continue; /* a failed write was reported already; stdout is piped somewhere */
		struct sbuf hint;
		sb_init(&hint);
		for (const char *h = status_open_hint(o->outs[i].fmt), *f; *h; h = f + 4) {
			if (!(f = strstr(h, "FILE"))) {
				sb_puts(&hint, h);
				break;
			}
			sb_add(&hint, h, (size_t)(f - h));
			sb_puts(&hint, path);
		}
		warnx_lf("wrote %s: %s", path, hint.s ? hint.s : "");
		sb_free(&hint);
	}
}

#define LF_STR_(x) #x
#define LF_STR(x) LF_STR_(x)

static void print_stats(const uint64_t *st)
{
	struct sbuf b;
	sb_init(&b);
	for (int m = 1; m < LF_MARK_COUNT; m++)
		if (st[LF_STAT_MARK_BASE + m])
			sb_printf(&b, ", %s %llu", stacks_mark_name((unsigned)m), (unsigned long long)st[LF_STAT_MARK_BASE + m]);
	/* counts shown only when not 0 */
	static const struct { int stat; const char *what; } shown[] = {
		{ LF_STAT_LUA_ELIDED, "Lua frames elided" },
		{ LF_STAT_LUA_DEPTH, "Lua depth limit" },
		{ LF_STAT_LUA_NO_LOOP, "Lua stacks cut at " LF_STR(LF_LUA_NOLOOP) " frames (kernel without bpf_loop)" },
		{ LF_STAT_VM_UNKNOWN, "in a Lua VM not found yet" },
		{ LF_STAT_REPLAYED, "outer frames replayed" },
	};
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++)
		if (st[shown[i].stat])
			sb_printf(&b, ", %s %llu", shown[i].what, (unsigned long long)st[shown[i].stat]);
	warnx_lf("stats: samples %llu, complete stacks %llu, lost (map full) %llu, kernel stack errors "
		 "%llu, new stacks named late %llu, map entries made %llu%s", (unsigned long long)st[LF_STAT_SAMPLES],
		 (unsigned long long)st[LF_STAT_COMPLETE], (unsigned long long)st[LF_STAT_LOST_MAPFULL],
		 (unsigned long long)st[LF_STAT_KSTACK_ERR], (unsigned long long)st[LF_STAT_FRESH_LOST],
		 (unsigned long long)st[LF_STAT_ENTRIES], b.s ? b.s : "");
	sb_free(&b);
}

static void print_lua(const struct record_result *r)
{
	if (!r->nlua)
		warnx_lf("no Lua runtime found: the profile has native stacks only");
	else if (r->nprocs > 1)
		warnx_lf("Lua runtime: %s in %d of %d processes", r->lua, r->nlua, r->nprocs);
	else
		warnx_lf("Lua runtime: %s", r->lua);
}

/* Alloc mode: how much of the time the probes were on, and how many calls they took. A
 * window's bytes are not turned into a rate: each probed call holds its thread for far longer
 * than an allocation takes, so a window sees a thread's allocations in their order but not at
 * their pace. */
static void print_alloc(const struct aw_result *a)
{
	if (!a->probes) {
		warnx_lf("no Lua allocator was found to probe (no Lua VM seen): the profile is empty");
		return;
	}
	double share = a->elapsed > 0 ? 100.0 * a->open / a->elapsed : 0.0;
	double held = a->elapsed > 0 ? 100.0 * a->held / a->elapsed : 0.0;
	warnx_lf("allocations: %d windows open %.2f%% of %.1fs, on up to %d threads of %d allocators; the probes "
		 "were in the code %.2f%% of the time (the most an allocating thread was slowed)", a->windows, share,
		 a->elapsed, a->threads, a->probes, held);
}

void status_summary(const struct record_opts *o, const struct profile *p, const struct record_result *r,
		    const int *ok)
{
	uint64_t n = r->st[LF_STAT_SAMPLES], whole = r->st[LF_STAT_COMPLETE] + r->fiber_roots;
	whole -= r->lua_partial < whole ? r->lua_partial : whole;
	double pct = n ? 100.0 * (double)whole / (double)n : 0.0;
	const char *unit = o->alloc ? "bytes" : "samples";
	if (whole < n && pct > 99.9)
		pct = 99.9; /* "100.0%" is for every stack complete, not 1 in 2,000 missing */
	if (o->alloc)
		warnx_lf("%llu allocations sampled (%.1f MB, %llu lost), %zu distinct stacks, %.1f%% complete, in %.1fs",
			 (unsigned long long)n, (double)p->total / 1e6, (unsigned long long)r->st[LF_STAT_LOST_MAPFULL],
			 p->n, pct, p->duration);
	else
		warnx_lf("%llu sample%s (%llu lost), %zu distinct stack%s, %.1f%% complete, in %.1fs",
			 (unsigned long long)p->total, p->total == 1 ? "" : "s",
			 (unsigned long long)r->st[LF_STAT_LOST_MAPFULL], p->n, p->n == 1 ? "" : "s", pct, p->duration);
	print_lua(r);
	if (o->alloc)
		print_alloc(&r->alloc);
	if (o->wall)
		warnx_lf("wall clock: %llu samples on a CPU, %llu off it (waiting, or preempted)%s",
			 (unsigned long long)r->st[LF_STAT_SAMPLES], (unsigned long long)r->st[LF_STAT_OFFCPU],
			 r->st[LF_STAT_OFF_LOST] ? "; some time off the CPU was lost: more threads blocked than "
						   "lua-flame keeps (4096)" : "");
	if (r->gone)
		warnx_lf("%llu %s (%.1f%%) have a Lua function that was freed, or whose process exited, "
			 "before its name could be read (a state closed right after its work, a VM per request?): "
			 "shown as " LF_LABEL_GONE ", not complete%s", (unsigned long long)r->gone, unit,
			 p->total ? 100.0 * (double)r->gone / (double)p->total : 0.0,
			 r->namer_nice_only ? "; the kernel refused the thread that names them a deadline "
					      "reservation (run as root, in a cpuset that is not narrowed: "
					      "not under taskset), so it named them later" : "");
	if (r->jit_code)
		warnx_lf("%llu %s (%.1f%%) ran machine code that no runtime claims, or a LuaJIT trace "
			 "before its VM was found: shown as " LF_LABEL_JIT ", not complete",
			 (unsigned long long)r->jit_code, unit, p->total ? 100.0 * (double)r->jit_code / (double)p->total : 0.0);
	if (r->unnamed)
		warnx_lf("%llu %s (%.1f%%) have a native frame in memory that no file mapped while "
			 "lua-flame read the process's maps (code unmapped since, or mapped and run between two "
			 "reads): shown as " LF_LABEL_UNKNOWN ", not complete",
			 (unsigned long long)r->unnamed, unit, p->total ? 100.0 * (double)r->unnamed / (double)p->total : 0.0);
	if (p->total == 0)
		warnx_lf("no samples: the target did not run on a CPU while recording (idle?); "
			 "the outputs are valid but empty");
	if (o->stats)
		print_stats(r->st);
	print_outputs(o, ok);
}
