/* A recording session: attach the sampler to the target processes, drain stacks while
 * they run, then symbolize, aggregate and write every requested output. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "checks.h"
#include "record.h"
#include "sampler.h"
#include "stacks.h"
#include "symbolize.h"
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

/* Samples until the duration ends, a signal arrives or every target exits. */
static void record_loop(const struct record_opts *o, struct sampler *smp, struct stack_ctx *sc)
{
	double start = now_sec(), next_drain = start + 1.0;
	while (!stop_requested) {
		double end = o->duration > 0 ? start + o->duration : 1e300;
		sleep_until(next_drain < end ? next_drain : end);
		double now = now_sec();
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

static void summary(const struct record_opts *o, const struct profile *p, const uint64_t *st)
{
	struct sbuf b;
	sb_init(&b);
	for (int i = 0; i < o->nouts; i++)
		sb_printf(&b, "%s%s", i ? ", " : "", o->outs[i].path);
	uint64_t lost = st[LF_STAT_LOST_MAPFULL];
	warnx_lf("%llu samples (%llu lost), %zu distinct stacks in %.1fs; wrote %s",
		 (unsigned long long)p->total, (unsigned long long)lost, p->n, p->duration, b.s ? b.s : "");
	if (p->total == 0)
		warnx_lf("no samples: the target did not run on a CPU while recording (idle?); "
			 "the outputs are valid but empty");
	if (o->stats)
		warnx_lf("stats: samples %llu, lost (map full) %llu, kernel stack errors %llu, "
			 "user stack errors %llu", (unsigned long long)st[LF_STAT_SAMPLES],
			 (unsigned long long)lost, (unsigned long long)st[LF_STAT_KSTACK_ERR],
			 (unsigned long long)st[LF_STAT_USTACK_ERR]);
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
	struct sampler_cfg cfg = { o->threads, o->kernel, o->max_stacks };
	struct sampler *smp = sampler_open(&cfg, &rc);
	if (!smp)
		return rc;
	struct profile prof;
	profile_init(&prof);
	struct stack_ctx sc = { .prof = &prof, .sym = symbolizer_new() };
	for (int i = 0; i < o->npids; i++) {
		sampler_add_target(smp, o->pids[i]);
		stacks_add_target(&sc, o->pids[i]);
	}
	describe_run(o, &prof);
	install_signals();
	rc = sampler_attach(smp, o->hz);
	if (rc == 0) {
		info_lf("profiling PID %s (%s) at %d Hz%s", prof.pids, prof.command, o->hz,
			o->duration > 0 ? "" : "; press Ctrl-C to stop");
		record_loop(o, smp, &sc);
		sampler_drain(smp, stacks_collect, &sc);
		uint64_t st[LF_STAT_MAX];
		sampler_stats(smp, st);
		prof.lost = st[LF_STAT_LOST_MAPFULL];
		rc = write_outputs(o, &prof) ? 1 : 0;
		summary(o, &prof, st);
	}
	sampler_close(smp);
	stacks_free(&sc);
	profile_free(&prof);
	return rc;
}
