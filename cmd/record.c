/* A recording session: attach the sampler to the target processes (given by PID, their
 * children, or a command lua-flame starts), drain stacks while they run, then
 * symbolize, aggregate and write every requested output. */
#include <math.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "alloc_windows.h"
#include "checks.h"
#include "children.h"
#include "kfeatures.h"
#include "targets.h"
#include "runtime.h"
#include "runtime_attach.h"
#include "proc_ns.h"
#include "record.h"
#include "restrictions.h"
#include "sampler.h"
#include "stacks.h"
#include "startup_helper.h"
#include "status.h"
#include "symbolize.h"
#include "unwind_tables.h"
#include "util.h"

struct session {
	struct record_opts *o;
	struct sampler *smp;
	struct alloc_windows *aw;  /* --mode alloc: the allocators' probes */
	struct unwind_tables *ut;
	struct stack_ctx sc;
	struct targets tg;
	struct command cmd;
	uint64_t st[LF_STAT_MAX];
	uint64_t lost_reported;
	double next_lost_warning;
	uint64_t entries_at_drain; /* LF_STAT_ENTRIES at the last drain */
	struct aw_result alloc;    /* alloc mode: what the windows saw */
	double maps_ms, load_ms, tables_ms; /* start-up: the targets' maps; the BPF program's load, the
					     * unwind tables built beside it */
};

#define DEFAULT_MAX_STACKS 8192 /* the stack map's size (profile.bpf.c) unless --max-stacks */

static unsigned max_stacks(const struct record_opts *o)
{
	return o->max_stacks ? o->max_stacks : DEFAULT_MAX_STACKS;
}

/* Lua functions are named when the kernel announces a new stack (a thread of the sampler), and
 * stacks are folded and counted at drains, which also bound the kernel's stack map. */
/* A drain each second, or sooner once the generation has filled a quarter of the stack map: each
 * drain walks the map, and a profile with many distinct stacks must not fill it. */
#define DRAIN_INTERVAL 1.0

/* How long the loop may sleep. Each wake-up costs lua-flame's CPU, so it looks often only
 * while a target is new (its libraries and Lua runtime appear) or children must be found by
 * looking; a request from the BPF side to read a process's maps wakes it at once. */
#define TICK_FRESH    0.01
#define TICK_CHILDREN 0.1
#define TICK_IDLE     0.5

static double tick_gap(struct session *s, double now, double last_drain, uint64_t made, uint64_t quarter)
{
	if (targets_fresh(&s->tg, now))
		return TICK_FRESH;
	double gap = s->o->children ? TICK_CHILDREN : TICK_IDLE;
	/* A drain before a quarter of the map is made: at the generation's rate so far, look
	 * again within half the time that takes. */
	uint64_t n = made - s->entries_at_drain;
	if (n && now > last_drain && n < quarter) {
		double left = (double)(quarter - n) / ((double)n / (now - last_drain));
		if (left / 2 < gap)
			gap = left / 2 > TICK_FRESH ? left / 2 : TICK_FRESH;
	}
	return gap;
}

static double earliest(double a, double b)
{
	return a < b ? a : b;
}

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	if (stop_signal && sig == SIGINT)
		_exit(130); /* second Ctrl-C: the user wants out now */
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* "Lua 5.4.6 (/usr/bin/lua5.4)" or "LuaJIT 2.1... (path)" for the first runtime found;
 * returns how many targets have one. */
static int runtime_found(struct session *s, char *buf, size_t size, int with_path)
{
	int n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < s->sc.ntargets; i++) {
		const struct stack_target *t = &s->sc.targets[i];
		if (!t->rt || n++)
			continue;
		snprintf(buf, size, with_path ? "%.40s (%.80s)" : "%.40s", t->rt->name, t->rt->core_path);
	}
	return n;
}

static void show_status(struct session *s, double start, double now)
{
	struct status_info in = { now - start, s->o->duration, s->st[LF_STAT_SAMPLES],
				  s->st[LF_STAT_LOST_MAPFULL], (int)s->tg.nt, 0, "" };
	in.nlua = runtime_found(s, in.lua, sizeof(in.lua), 0);
	status_show(&in);
}

/* The stack map filled up before a drain: say which knob to turn, at most every 10 s. */
static void warn_lost(struct session *s, double now)
{
	uint64_t lost = s->st[LF_STAT_LOST_MAPFULL];
	if (lost <= s->lost_reported || now < s->next_lost_warning)
		return;
	unsigned max = max_stacks(s->o);
	status_clear();
	warnx_lf("%llu samples lost: more distinct stacks arrived between two drains than the kernel "
		 "map holds (--max-stacks %u); rerun with --max-stacks %u, or a lower rate than -F %d",
		 (unsigned long long)(lost - s->lost_reported), max, max * 4, s->o->hz);
	s->lost_reported = lost;
	s->next_lost_warning = now + 10.0;
}

/* Alloc mode: every VM's allocator found so far is probed (new VMs, new threads too). */
static void probe_allocators(struct session *s)
{
	for (size_t i = 0; s->aw && i < s->sc.ntargets; i++) {
		const struct stack_target *t = &s->sc.targets[i];
		uint64_t fn[LF_MAX_GS];
		size_t n = t->rt && t->rt->ops->allocators ? t->rt->ops->allocators(t->rt, fn, LF_MAX_GS) : 0;
		for (size_t k = 0; k < n; k++)
			aw_probe(s->aw, t->rt->pid, fn[k]);
	}
}

static void drain(struct session *s, double now)
{
	sampler_drain(s->smp, stacks_collect, &s->sc);
	symbolizer_new_epoch(s->sc.sym);
	sampler_stats(s->smp, s->st);
	warn_lost(s, now);
}

/* `top`: the live view's turn, with a fresh profile each second; nonzero: it asks to stop. */
static int live_turn(struct session *s, double start, double now, double *next)
{
	char lua[128];
	int refresh = now >= *next;
	if (refresh) {
		drain(s, now);
		*next = now + 1.0;
	}
	runtime_found(s, lua, sizeof(lua), 0);
	struct live_tick tk = { now - start, s->st[LF_STAT_SAMPLES], s->st[LF_STAT_LOST_MAPFULL], s->sc.prof,
				lua, s->o->hz, refresh };
	return s->o->live(s->o->live_ctx, &tk);
}

/* Samples until the duration ends, a signal arrives or every target exits; the duration
 * counts from start, when the targets began to be sampled. */
static void record_loop(struct session *s, double start)
{
	const struct record_opts *o = s->o;
	double now = now_sec(), next_drain = start + DRAIN_INTERVAL, next_status = start + 1.0;
	double end = o->duration > 0 ? start + o->duration : 1e300, next_live = start + 1.0, last_drain = start;
	uint64_t map_quarter = max_stacks(o) / 4, made = 0;
	show_status(s, start, now);
	while (!stop_signal) {
		double wake = now + tick_gap(s, now, last_drain, made, map_quarter);
		wake = earliest(earliest(wake, next_drain), earliest(next_status, end));
		wake = earliest(wake, targets_next_data(&s->tg));
		sampler_sleep_until(s->smp, o->live ? earliest(wake, next_live) : wake);
		now = now_sec();
		targets_refresh_tables(&s->tg, now);
		targets_follow(&s->tg, now);
		runtime_refresh(&s->sc, s->smp, s->ut, now, sampler_stat(s->smp, LF_STAT_VM_UNKNOWN));
		probe_allocators(s);
		made = sampler_stat(s->smp, LF_STAT_ENTRIES);
		if (now >= next_drain || made - s->entries_at_drain >= map_quarter) {
			drain(s, now);
			s->entries_at_drain = made;
			next_drain = now + DRAIN_INTERVAL;
			last_drain = now;
		}
		if (now >= next_status) {
			show_status(s, start, now);
			next_status += 1.0;
		}
		if (o->live && live_turn(s, start, now, &next_live))
			break;
		if (now >= end)
			break;
		if (!targets_alive(&s->tg)) {
			status_clear();
			info_lf("every target process has exited; writing the profile");
			break;
		}
	}
	status_clear();
	s->sc.prof->duration = now_sec() - start;
}

static void describe_run(struct session *s, struct profile *p)
{
	struct sbuf b;
	sb_init(&b);
	for (size_t i = 0; i < s->tg.nt && b.len < 200; i++) {
		pid_t pid = s->tg.t[i].pid, inner;
		sb_printf(&b, "%s%d", i ? "," : "", (int)pid);
		/* Inside a container, the PID its users know is another one. */
		if (proc_in_other_pidns(pid) == 1 && proc_ns_pid(pid, &inner) == 0)
			sb_printf(&b, " [PID %d in its container]", (int)inner);
	}
	snprintf(p->pids, sizeof(p->pids), "%s", b.s ? b.s : "");
	sb_free(&b);
	proc_cmdline(s->tg.t[0].pid, p->command, sizeof(p->command));
	p->hz = s->o->hz;
	p->wall = s->o->wall;
	p->alloc = s->o->alloc;
}

static int preflight(const struct record_opts *o)
{
	int rc = o->command ? 0 : check_targets(o->pids, o->npids);
	if (!rc)
		rc = check_environment(o->btf);
	if (!rc)
		rc = check_bpf_allowed();
	if (!rc)
		rc = check_perf_events();
	for (int i = 0; !rc && i < o->nouts; i++)
		rc = output_check_writable(o->outs[i].path) ? 2 : 0;
	return rc;
}

/* Headroom for libraries loaded later: 256K rows (2 MiB); a command's program is not mapped
 * yet, so it gets 1M rows. */
static size_t rows_headroom(const struct record_opts *o) { return o->command ? 1 << 20 : 1 << 18; }

/* The frames are named from the maps the unwinder was given, read while the process ran. */
static void note_maps(void *sym, pid_t pid, const struct proc_maps *pm)
{
	symbolizer_take_maps(sym, pid, pm);
}

/* Reads the targets' maps (the command has none yet) and loads the BPF program, sized from
 * them with room for libraries loaded later, while their unwind tables are built apart:
 * the kernel's check of the program and the tables' parsing each keep one CPU busy. */
static int open_sampler(struct session *s)
{
	const struct record_opts *o = s->o;
	double t0 = now_sec();
	s->ut = s->tg.ut = ut_new();
	ut_on_maps(s->ut, note_maps, s->sc.sym);
	ut_say_if_slow(s->ut, t0 + 1.0); /* the first sample should come within a second */
	ut_defer_rows(s->ut, 1);
	for (int i = 0; i < o->npids; i++) {
		ut_add_pid(s->ut, o->pids[i]);
		targets_new(&s->tg, o->pids[i], TARGET_GIVEN, 0);
	}
	if (o->children)
		targets_add_children(&s->tg);
	ut_defer_rows(s->ut, 0);
	struct sampler_cfg cfg = { o->threads, o->kernel, o->max_stacks, ut_rows_bound(s->ut) + rows_headroom(o),
				   ut_files(s->ut) * 2 + 1024, o->lines, o->btf, o->wall ? o->hz : 0, o->addresses,
				   o->alloc };
	struct startup_helper helper;
	startup_helper_start(&helper, s->ut, o->pids, (size_t)o->npids);
	double t1 = now_sec();
	s->maps_ms = (t1 - t0) * 1000.0;
	int rc = 1;
	struct sampler *smp = sampler_open(&cfg, &rc);
	s->load_ms = (now_sec() - t1) * 1000.0;
	s->tables_ms = startup_helper_finish(&helper, s->ut);
	ut_say_if_slow(s->ut, 0);
	if (smp && ut_rows(s->ut) > cfg.rows_cap) { /* CFI denser than any seen: loaded again */
		sampler_close(smp);
		cfg.rows_cap = ut_rows(s->ut) + ut_rows(s->ut) / 2 + rows_headroom(o);
		smp = sampler_open(&cfg, &rc);
	}
	if (!(s->smp = s->tg.smp = smp))
		return rc;
	sampler_on_fresh(s->smp, stacks_fresh, &s->sc);
	return sampler_setup_unwind(s->smp, s->ut) ? 1 : 0;
}

static void command_mapped(void *ctx, int complete)
{
	struct session *s = ctx;
	targets_command_mapped(&s->tg, s->cmd.pid, complete);
}

/* The command was held before exec; it runs once sampling is on, and when it is traced,
 * its code runs only once the tables cover it. */
static int start_command(struct session *s)
{
	if (command_release(&s->cmd, s->o->command[0], command_mapped, s))
		return 2;
	targets_command_running(&s->tg, s->cmd.pid, now_sec());
	return 0;
}


/* Attaches to everything, then records until the end; returns 0 or an exit status. */
static int session_record(struct session *s, double t0)
{
	int rc = open_sampler(s);
	if (rc)
		return rc;
	if (s->o->command)
		targets_add_command(&s->tg, s->cmd.pid, !s->cmd.traced);
	targets_prepare(&s->tg);
	install_signals();
	if ((rc = sampler_attach(s->smp, s->o->hz)))
		return rc;
	if (s->o->alloc && !(s->aw = aw_open(sampler_alloc_prog_fd(s->smp), ALLOC_WINDOW_MS / 1000.0,
					     1.0 / s->o->hz)))
		return 2;
	double on = now_sec();
	targets_attach(&s->tg); /* each target is sampled once its VM is known */
	probe_allocators(s);
	if (s->aw)
		aw_start(s->aw);
	if (s->o->kernel) /* once sampling is on: the first sample need not wait for it */
		symbolizer_load_kernel(s->sc.sym);
	if (s->o->command && (rc = start_command(s)))
		return rc;
	/* -d counts from the moment the targets are sampled: a command's from its release */
	double from = s->o->command ? now_sec() : on;
	if ((rc = targets_check_alive(&s->tg)))
		return rc;
	if (s->o->stats) {
		char k[256];
		kf_describe(k, sizeof(k));
		warnx_lf("%s", k);
	}
	if (s->o->stats)
		warnx_lf("unwind tables: %zu files, %zu rows, %.1f MiB of maps; sampling %.0f ms after start "
			 "(maps %.0f ms, then the BPF program %.0f ms and the unwind tables %.0f ms side by side; "
			 "every target %.0f ms after start)",
			 ut_files(s->ut), ut_rows(s->ut), (double)ut_memory(s->ut) / 1048576.0,
			 (fmax(on, sampler_first_target_at(s->smp)) - t0) * 1000.0, s->maps_ms, s->load_ms, s->tables_ms,
			 (now_sec() - t0) * 1000.0);
	describe_run(s, s->sc.prof);
	info_lf("profiling PID %s (%s) at %d Hz%s", s->sc.prof->pids, s->sc.prof->command, s->o->hz,
		s->o->duration > 0 ? "" : "; press Ctrl-C to stop");
	record_loop(s, from);
	if (s->aw)
		aw_stop(s->aw, &s->alloc);
	sampler_pause(s->smp); /* the time asked for is over: no sample after it */
	sampler_wall_settle(s->smp);
	sampler_stop_naming(s->smp);
	sampler_drain(s->smp, stacks_collect, &s->sc);
	sampler_stats(s->smp, s->st);
	s->sc.prof->lost = s->st[LF_STAT_LOST_MAPFULL];
	return 0;
}

static void session_close(struct session *s)
{
	aw_close(s->aw);
	if (s->smp)
		sampler_close(s->smp);
	if (s->ut)
		ut_free(s->ut);
	stacks_free(&s->sc);
	targets_free(&s->tg);
}

/* Recording stopped while the command still runs: a signal is passed on to it, after the
 * duration it is left to finish; either way its exit status becomes lua-flame's. */
static int finish_command(struct session *s)
{
	if (proc_state(s->cmd.pid) == PROC_ALIVE) {
		if (stop_signal)
			kill(s->cmd.pid, stop_signal);
		else
			info_lf("recording done; waiting for %s (PID %d) to exit (Ctrl-C stops it)",
				s->o->command[0], (int)s->cmd.pid);
	}
	return command_wait(&s->cmd);
}

/* Everything up to the end of sampling; the caller writes outputs, then session_end. */
static int session_run(struct session *s, struct record_opts *o, struct profile *prof)
{
	memset(s, 0, sizeof(*s));
	s->o = o;
	s->cmd.go_fd = s->cmd.exec_fd = -1;
	int rc = preflight(o);
	if (rc)
		return rc;
	double t0 = now_sec();
	s->sc = (struct stack_ctx){ .prof = prof, .sym = symbolizer_new(), .lines = o->lines, .kernel = o->kernel };
	symbolizer_set_addresses(s->sc.sym, o->addresses);
	s->tg.o = o;
	s->tg.sc = &s->sc;
	if (o->command && command_start(&s->cmd, o->command))
		return 1;
	status_init(!lf_quiet && !o->command && !o->live); /* a command or the live view owns the terminal */
	return session_record(s, t0);
}

/* Lua runtimes found, for the summary: "Lua 5.4.6 (/usr/lib/.../liblua5.4.so.0)". */
static void describe_lua(struct session *s, struct record_result *res)
{
	res->nprocs = (int)s->tg.nt;
	res->nlua = runtime_found(s, res->lua, sizeof(res->lua), 1);
	res->gone = s->sc.gone;
	res->namer_nice_only = s->smp && sampler_namer_nice_only(s->smp);
	res->jit_code = s->sc.jit_code;
	res->unnamed = s->sc.unnamed;
	res->fiber_roots = s->sc.fiber_roots;
	res->lua_partial = s->sc.lua_partial;
	res->alloc = s->alloc;
}

/* Returns rc, or the command's exit status when there is a command and rc is 0. */
static int session_end(struct session *s, int rc, struct record_result *res)
{
	memcpy(res->st, s->st, sizeof(s->st));
	describe_lua(s, res);
	if (s->o->command && s->cmd.pid > 0) {
		if (rc && s->cmd.go_fd >= 0)
			kill(s->cmd.pid, SIGKILL); /* never ran: do not leave it waiting */
		int status = rc ? command_wait(&s->cmd) : finish_command(s);
		if (!rc)
			rc = status;
	}
	if (s->cmd.go_fd >= 0)
		close(s->cmd.go_fd);
	if (s->cmd.exec_fd >= 0)
		close(s->cmd.exec_fd);
	session_close(s);
	return rc;
}

int record_collect(struct record_opts *o, struct profile *prof, struct record_result *res)
{
	struct session s;
	int rc = session_run(&s, o, prof);
	return session_end(&s, rc, res);
}

int record_run(struct record_opts *o)
{
	struct profile prof;
	struct record_result res;
	struct session s;
	profile_init(&prof);
	int rc = session_run(&s, o, &prof), failed = 0;
	if (!rc) {
		int ok[OUTPUTS_MAX];
		failed = output_write_all(o->outs, o->nouts, &prof, o->out_mode, ok) > 0;
		memcpy(res.st, s.st, sizeof(s.st));
		describe_lua(&s, &res);
		status_summary(o, &prof, &res, ok);
	}
	rc = session_end(&s, rc, &res);
	profile_free(&prof);
	/* A profile that could not be written is lua-flame's failure, whatever the command did. */
	return failed ? 1 : rc;
}
