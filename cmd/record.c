/* A recording session: attach the sampler to the target processes, drain stacks while
 * they run, then symbolize, aggregate and write every requested output. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "lua_attach.h"
#include "record.h"
#include "sampler.h"
#include "stacks.h"
#include "symbolize.h"
#include "unwind_tables.h"
#include "util.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	if (stop_requested && sig == SIGINT)
		_exit(130); /* second Ctrl-C: the user wants out now */
	stop_requested = 1;
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

static int any_target_alive(const struct record_opts *o)
{
	for (int i = 0; i < o->npids; i++)
		if (proc_state(o->pids[i]) == PROC_ALIVE)
			return 1;
	return 0;
}

static void sleep_until(double t)
{
	double d = t - now_sec();
	if (d <= 0)
		return;
	struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
	nanosleep(&ts, NULL); /* interrupted by signals, by design */
}

/* Processes that ran code outside their known mappings (dlopen, new JIT regions) get
 * their maps re-read and tables built for the new files. */
static void refresh_tables(struct sampler *smp, struct unwind_tables *ut)
{
	pid_t pids[64];
	int n = sampler_take_rescans(smp, pids, 64);
	for (int i = 0; i < n; i++)
		ut_add_pid(ut, pids[i]);
	if (n)
		ut_sync(ut);
}

/* Samples until the duration ends, a signal arrives or every target exits. */
static void record_loop(const struct record_opts *o, struct sampler *smp, struct stack_ctx *sc,
			struct unwind_tables *ut)
{
	double start = now_sec(), next_drain = start + 1.0, tick = start;
	while (!stop_requested) {
		double end = o->duration > 0 ? start + o->duration : 1e300;
		/* A short tick picks up new libraries quickly; draining is once a second. */
		tick += 0.1;
		sleep_until(tick < end ? tick : end);
		double now = now_sec();
		if (tick < now)
			tick = now;
		refresh_tables(smp, ut);
		lua_refresh(sc, smp, ut, now);
		if (now >= next_drain) {
			sampler_drain(smp, stacks_collect, sc);
			symbolizer_new_epoch(sc->sym);
			next_drain = now + 1.0;
		}
		if (o->duration > 0 && now >= end)
			break;
		if (!any_target_alive(o)) {
			info_lf("every target process has exited; writing the profile");
			break;
		}
	}
	sc->prof->duration = now_sec() - start;
}

static void describe_run(const struct record_opts *o, struct profile *p)
{
	struct sbuf b;
	sb_init(&b);
	for (int i = 0; i < o->npids && b.len < 200; i++)
		sb_printf(&b, "%s%d", i ? "," : "", (int)o->pids[i]);
	snprintf(p->pids, sizeof(p->pids), "%s", b.s ? b.s : "");
	sb_free(&b);
	proc_comm(o->pids[0], p->command, sizeof(p->command));
	p->hz = o->hz;
}

static int write_outputs(const struct record_opts *o, const struct profile *p)
{
	int failed = 0;
	for (int i = 0; i < o->nouts; i++)
		failed |= output_write(&o->outs[i], p) != 0;
	return failed;
}

static const char *const mark_names[LF_MARK_COUNT] = {
	[LF_MARK_TRUNCATED] = "depth limit", [LF_MARK_NO_USTACK] = "no user registers",
	[LF_MARK_NO_TABLE] = "no table", [LF_MARK_INVALID] = "unsupported rule",
	[LF_MARK_BAD_READ] = "unreadable stack", [LF_MARK_NO_MAPPING] = "unmapped pc",
	[LF_MARK_FP_FAILED] = "frame pointers broken", [LF_MARK_NO_PROC] = "process not ready",
};

static void print_stats(const uint64_t *st)
{
	struct sbuf b;
	sb_init(&b);
	for (int m = 1; m < LF_MARK_COUNT; m++)
		if (st[LF_STAT_MARK_BASE + m])
			sb_printf(&b, ", %s %llu", mark_names[m], (unsigned long long)st[LF_STAT_MARK_BASE + m]);
	warnx_lf("stats: samples %llu, complete stacks %llu, lost (map full) %llu, kernel stack errors "
		 "%llu%s", (unsigned long long)st[LF_STAT_SAMPLES], (unsigned long long)st[LF_STAT_COMPLETE],
		 (unsigned long long)st[LF_STAT_LOST_MAPFULL], (unsigned long long)st[LF_STAT_KSTACK_ERR],
		 b.s ? b.s : "");
	sb_free(&b);
}

static void summary(const struct record_opts *o, const struct profile *p, const uint64_t *st)
{
	struct sbuf b;
	sb_init(&b);
	for (int i = 0; i < o->nouts; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", o->outs[i].path);
	uint64_t lost = st[LF_STAT_LOST_MAPFULL], n = st[LF_STAT_SAMPLES];
	warnx_lf("%llu samples (%llu lost), %zu distinct stacks, %.1f%% complete, in %.1fs; wrote %s",
		 (unsigned long long)p->total, (unsigned long long)lost, p->n,
		 n ? 100.0 * (double)st[LF_STAT_COMPLETE] / (double)n : 0.0, p->duration, b.s ? b.s : "");
	if (p->total == 0)
		warnx_lf("no samples: the target did not run on a CPU while recording (idle?); "
			 "the outputs are valid but empty");
	if (o->stats)
		print_stats(st);
	sb_free(&b);
}

int record_run(struct record_opts *o)
{
	int rc = check_targets(o->pids, o->npids);
	if (!rc)
		rc = check_environment();
	for (int i = 0; !rc && i < o->nouts; i++)
		rc = output_check_writable(o->outs[i].path) ? 2 : 0;
	if (rc)
		return rc;
	double t0 = now_sec();
	struct unwind_tables *ut = ut_new();
	for (int i = 0; i < o->npids; i++)
		ut_add_pid(ut, o->pids[i]);
	/* Room for libraries loaded later: half again the current rows plus 256K rows (2 MiB). */
	size_t rows = ut_rows(ut);
	struct sampler_cfg cfg = { o->threads, o->kernel, o->max_stacks, rows + rows / 2 + (1 << 18),
				   ut_files(ut) * 2 + 1024 };
	struct sampler *smp = sampler_open(&cfg, &rc);
	if (!smp) {
		ut_free(ut);
		return rc;
	}
	if (sampler_setup_unwind(smp, ut)) {
		sampler_close(smp);
		ut_free(ut);
		return 1;
	}
	struct profile prof;
	profile_init(&prof);
	struct stack_ctx sc = { .prof = &prof, .sym = symbolizer_new(), .lines = o->lines };
	for (int i = 0; i < o->npids; i++) {
		sampler_add_target(smp, o->pids[i]);
		stacks_add_target(&sc, o->pids[i]);
		lua_attach(&sc, smp, ut, o->pids[i]);
	}
	describe_run(o, &prof);
	install_signals();
	rc = sampler_attach(smp, o->hz);
	if (rc == 0) {
		if (o->stats)
			warnx_lf("unwind tables: %zu files, %zu rows, %.1f MiB of maps; sampling %.0f ms "
				 "after start", ut_files(ut), ut_rows(ut), (double)ut_memory(ut) / 1048576.0,
				 (now_sec() - t0) * 1000.0);
		info_lf("profiling PID %s (%s) at %d Hz%s", prof.pids, prof.command, o->hz,
			o->duration > 0 ? "" : "; press Ctrl-C to stop");
		record_loop(o, smp, &sc, ut);
		sampler_drain(smp, stacks_collect, &sc);
		uint64_t st[LF_STAT_MAX];
		sampler_stats(smp, st);
		prof.lost = st[LF_STAT_LOST_MAPFULL];
		rc = write_outputs(o, &prof) ? 1 : 0;
		summary(o, &prof, st);
	}
	sampler_close(smp);
	ut_free(ut);
	stacks_free(&sc);
	profile_free(&prof);
	return rc;
}
