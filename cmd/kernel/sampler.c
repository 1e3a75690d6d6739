/* The kernel side of a recording: loads the embedded BPF program, opens one cpu-clock
 * perf event per CPU, keeps the target set, and drains counted stacks generation by
 * generation so the map never fills on long runs. */
#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kfeatures.h"
#include "lua_merge.h"
#include "namer_sched.h"
#include "period_jitter.h"
#include "sampler.h"
#include "split_load.h"
#include "proc_ns.h"
#include "unwind_tables.h"
#include "util.h"
#include "profile.skel.h"
#include "profile_compat.skel.h"
#include "profile_alloc.skel.h"

struct sampler {
	struct profile_bpf *skel;
	struct bpf_object *half;    /* the native walk, loaded beside skel's programs (split_load.c) */
	struct bpf_link **links;
	int *pfds;
	int ncpu;
	struct period_jitter *jitter; /* re-arms the pfds' timers with random periods */
	__u32 gen;
	struct lf_stack *buf;
	struct lf_stack *batch;     /* DRAIN_BATCH stacks read at once */
	struct ring_buffer *rb;     /* announcements of new stacks */
	sampler_cb fresh_cb;
	void *fresh_ctx;
	struct lf_stack *fbuf;      /* the namer thread's copy of a new stack */
	pthread_t namer;
	enum namer_sched namer_sched; /* set by the namer itself (NAMER_DEADLINE, 0, until it runs) */
	int namer_tid;
	int namer_on, namer_stop;   /* namer_stop: an eventfd that ends the thread */
	int wake;                   /* eventfd: the BPF side asked for a process's maps */
	int wall_hz;                /* wall mode's rate, 0: CPU mode */
	int alloc;                  /* alloc mode: no perf events of its own (alloc_windows.c) */
	struct bpf_link **sw_links; /* wall mode: per CPU, threads leaving it */
	int *sw_pfds;
	struct bpf_link *in_link;   /* wall mode: threads switched in */
	uint64_t off_settled;       /* wall mode: samples' worth of time off the CPU counted at the end */
	double first_target_at;     /* when the first target was added (now_sec), 0: none yet */
};

/* A record read from stacks_small into a full one: what follows its words is cleared. */
static void widen_small(struct lf_stack *st)
{
	memset((char *)st + sizeof(struct lf_stack_small), 0, sizeof(*st) - sizeof(struct lf_stack_small));
}

/* A stack new to the namer (announce in profile.bpf.c): hand it over while its process is
 * still as it was sampled. */
static int on_fresh(void *ctx, void *data, size_t size)
{
	struct sampler *s = ctx;
	struct lf_stack_key k;
	uint64_t one = 1;
	if (size == sizeof(__u32)) { /* a PID (lf_ask_code, lf_ask_data): the main loop reads its maps */
		if (s->wake >= 0)
			(void)write(s->wake, &one, sizeof(one)); /* may fail only when it is awake already */
		return 0;
	}
	if (size < sizeof(k) || !s->fresh_cb)
		return 0;
	memcpy(&k, data, sizeof(k));
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks_small), &k, s->fbuf) == 0)
		widen_small(s->fbuf);
	else if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stacks), &k, s->fbuf) != 0)
		return 0;
	s->fresh_cb(&k, s->fbuf, s->fresh_ctx);
	return 0;
}

/* The namer thread: new stacks are handled within milliseconds, whatever the main loop is
 * busy with (symbolizing a drain, scanning memory), before the functions in them are freed. */
static void *namer_main(void *arg)
{
	struct sampler *s = arg;
	__atomic_store_n(&s->namer_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	s->namer_sched = namer_sched_raise();
	/* It sleeps until a stack is announced or it is told to stop: no wake-up on a timer. */
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event rb = { .events = EPOLLIN, .data.u32 = 0 }, stop = { .events = EPOLLIN, .data.u32 = 1 };
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ring_buffer__epoll_fd(s->rb), &rb) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, s->namer_stop, &stop)) {
		warnx_lf("the thread naming new stacks cannot wait for them (%s): Lua functions freed before "
			 "the next drain will show as " LF_LABEL_GONE, strerror(errno));
		if (ep >= 0)
			close(ep);
		return NULL;
	}
	for (;;) {
		struct epoll_event ev;
		int n = epoll_wait(ep, &ev, 1, -1);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && ev.data.u32 == 1)
			break;
		if (n > 0)
			ring_buffer__consume(s->rb);
	}
	close(ep);
	return NULL;
}

void sampler_on_fresh(struct sampler *s, sampler_cb cb, void *ctx)
{
	s->fresh_cb = cb;
	s->fresh_ctx = ctx;
	if (!s->rb || s->namer_on)
		return;
	if (s->namer_stop < 0)
		s->namer_stop = eventfd(0, EFD_CLOEXEC);
	if (s->wake < 0)
		s->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->namer_stop < 0) {
		warnx_lf("cannot make the eventfd of the thread naming new stacks (%s): Lua functions freed "
			 "before the next drain will show as " LF_LABEL_GONE, strerror(errno));
		return;
	}
	s->namer_on = start_helper(&s->namer, namer_main, s);
	if (!s->namer_on)
		warnx_lf("cannot start the thread naming new stacks: Lua functions freed before the next "
			 "drain will show as " LF_LABEL_GONE);
}

#define NAMER_STOP_WAIT 2.0 /* seconds: its longest batch of new stacks takes milliseconds */

/* Waits for the namer to end. Should it be kept from running (a deadline reservation the
 * kernel stopped replenishing), it is made an ordinary thread again, which ends: the profile
 * is written however the kernel schedules. */
static void join_namer(struct sampler *s)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)NAMER_STOP_WAIT;
	if (pthread_timedjoin_np(s->namer, NULL, &until) == 0)
		return;
	namer_sched_lower(__atomic_load_n(&s->namer_tid, __ATOMIC_ACQUIRE));
	warnx_lf("the thread naming new stacks did not end within %.0f s with its deadline reservation; "
		 "it now runs as an ordinary thread", NAMER_STOP_WAIT);
	pthread_join(s->namer, NULL);
}

int sampler_namer_nice_only(struct sampler *s)
{
	return s->namer_sched == NAMER_NICE_ONLY;
}

void sampler_stop_naming(struct sampler *s)
{
	if (s->namer_on) {
		uint64_t one = 1;
		if (write(s->namer_stop, &one, sizeof(one)) != sizeof(one))
			warnx_lf("cannot tell the thread naming new stacks to stop: %s", strerror(errno));
		join_namer(s);
		s->namer_on = 0;
	}
	if (s->rb && s->fresh_cb)
		ring_buffer__consume(s->rb);  /* what was announced meanwhile */
}

/* LUA_FLAME_DEBUG=verifier: the kernel logs each program's verification time and work. */
static int verifier_stats(void)
{
	const char *debug = getenv("LUA_FLAME_DEBUG");
	return debug && !strcmp(debug, "verifier");
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!getenv("LUA_FLAME_DEBUG"))
		return 0;
	/* "verifier": each program's verification statistics (load log), the rest of libbpf's
	 * debug messages left out */
	if (level == LIBBPF_DEBUG && (!verifier_stats() || !strstr(fmt, "PROG LOAD LOG")))
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* The options both objects of the program are opened with (profile_open, load_programs). */
static void set_open_opts(struct bpf_object_open_opts *opts, const char *btf)
{
	opts->btf_custom_path = btf;
	opts->kernel_log_level = verifier_stats() ? 4 : 0;
}

/* Kernels before 5.13 refuse an object that merely refers to a callback, so where bpf_loop
 * is missing the program built without it is loaded instead; alloc mode loads the one built
 * for uprobes. Each has the same maps, programs and knobs, so one skeleton type serves all. */
static struct profile_bpf *profile_open(int with_loop, int alloc, const char *btf)
{
	struct profile_bpf *obj = calloc(1, sizeof(*obj));
	if (!obj)
		return NULL;
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	set_open_opts(&opts, btf);
	int err = profile_bpf__create_skeleton(obj);
	if (!err && alloc)
		obj->skeleton->data = (void *)profile_alloc_bpf__elf_bytes(&obj->skeleton->data_sz);
	else if (!err && !with_loop)
		obj->skeleton->data = (void *)profile_compat_bpf__elf_bytes(&obj->skeleton->data_sz);
	if (!err)
		err = bpf_object__open_skeleton(obj->skeleton, &opts);
	if (err) {
		profile_bpf__destroy(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

/* Opens and configures the program; walk_lua 0 leaves the Lua walkers out of it. Returns
 * 0, or -1 with errno when the program cannot even be opened. */
static int configure(struct sampler *s, const struct sampler_cfg *cfg, int walk_lua)
{
	int loop = kf_bpf_loop();
	s->skel = profile_open(loop, cfg->alloc, cfg->btf);
	if (!s->skel)
		return -1;
	s->alloc = cfg->alloc;
	s->skel->rodata->per_thread = cfg->per_thread;
	s->skel->rodata->want_kernel = cfg->kernel && !cfg->alloc; /* a uprobe's kernel stack is its trap's */
	s->skel->rodata->want_lines = cfg->lines;
	/* LUA_FLAME_EXACT_PCS=1: every pc a stack of its own, as the tests' reference */
	s->skel->rodata->label_runs = !cfg->addresses && !getenv("LUA_FLAME_EXACT_PCS");
	/* LUA_FLAME_NO_REPLAY=1: every frame stepped, as the tests' reference */
	s->skel->rodata->walk_memo_on = !getenv("LUA_FLAME_NO_REPLAY");
	s->skel->rodata->has_bpf_loop = loop;
	s->skel->rodata->has_task_pt_regs = kf_task_pt_regs();
	s->skel->rodata->walk_lua = walk_lua;
	s->skel->rodata->wall_hz = (__u32)cfg->wall_hz;
	s->wall_hz = cfg->wall_hz;
	if (!cfg->wall_hz) { /* CPU mode: neither the programs nor the room of wall mode */
		bpf_program__set_autoload(s->skel->progs.on_switch_out, false);
		bpf_program__set_autoload(s->skel->progs.on_switch_in, false);
		bpf_map__set_max_entries(s->skel->maps.off_stacks, 1);
		bpf_map__set_max_entries(s->skel->maps.off_times, 1);
	}
	uint64_t dev, ino;
	if (proc_self_in_child_pidns() == 1 && proc_ns_self_pidns(&dev, &ino) == 0) {
		s->skel->rodata->pidns_dev = dev;
		s->skel->rodata->pidns_ino = ino;
	}
	if (cfg->max_stacks) {
		bpf_map__set_max_entries(s->skel->maps.stacks, cfg->max_stacks);
		bpf_map__set_max_entries(s->skel->maps.stacks_small, cfg->max_stacks);
	}
	bpf_map__set_max_entries(s->skel->maps.rows, (__u32)cfg->rows_cap);
	bpf_map__set_max_entries(s->skel->maps.files, (__u32)cfg->files_cap);
	/* Only where bpf_loop hashes the record: after the hash's unrolled loops of the program
	 * without it, a second map's path multiplies the verifier's work, near its limit. Every
	 * kernel that allocates map entries on demand (6.1 on) has bpf_loop (5.17 on). */
	s->skel->rodata->small_stacks = kf_nonprealloc_maps() && kf_bpf_loop();
	if (!s->skel->rodata->small_stacks)
		bpf_map__set_max_entries(s->skel->maps.stacks_small, 1);
	if (!kf_nonprealloc_maps()) {
		bpf_map__set_map_flags(s->skel->maps.stacks, bpf_map__map_flags(s->skel->maps.stacks) & ~BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->skel->maps.stacks_small,
				       bpf_map__map_flags(s->skel->maps.stacks_small) & ~BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->skel->maps.procs, bpf_map__map_flags(s->skel->maps.procs) & ~BPF_F_NO_PREALLOC);
		bpf_map__set_map_flags(s->skel->maps.off_stacks,
				       bpf_map__map_flags(s->skel->maps.off_stacks) & ~BPF_F_NO_PREALLOC);
	}
	return 0;
}

/* The programs of skel, the native walk apart in a second object from the same ELF, so the
 * kernel checks it beside the others (split_load.c); in one object where that cannot be. */
static int load_programs(struct sampler *s, const struct sampler_cfg *cfg)
{
	const struct bpf_object_skeleton *k = s->skel->skeleton;
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = k->name);
	set_open_opts(&opts, cfg->btf);
	s->half = split_load_init() ? NULL : bpf_object__open_mem(k->data, k->data_sz, &opts);
	if (!s->half)
		return profile_bpf__load(s->skel);
	return split_load(s->skel->skeleton, s->half, bpf_program__name(s->skel->progs.unwind_user));
}

static void unload(struct sampler *s)
{
	bpf_object__close(s->half);
	s->half = NULL;
	profile_bpf__destroy(s->skel);
	s->skel = NULL;
}

/* Loads the program; a verifier that finds the Lua walk too complex (E2BIG: 5.10's does, for
 * the walk without bpf_loop) gets the program without it, and native stacks only. */
static int load(struct sampler *s, const struct sampler_cfg *cfg)
{
	int err = load_programs(s, cfg);
	if (err != -E2BIG || kf_bpf_loop())
		return err;
	unload(s);
	if (configure(s, cfg, 0))
		return -errno;
	warnx_lf("this kernel's BPF verifier cannot take the Lua stack walk without bpf_loop (kernels "
		 "before 5.17): native stacks only");
	return load_programs(s, cfg);
}

struct sampler *sampler_open(const struct sampler_cfg *cfg, int *exit_code)
{
	libbpf_set_print(libbpf_log);
	split_load_init(); /* before the object is opened; without it, one load after the other */
	struct sampler *s = xcalloc(1, sizeof(*s));
	s->namer_stop = s->wake = -1;
	s->buf = xmalloc(sizeof(*s->buf));
	s->fbuf = xmalloc(sizeof(*s->fbuf));
	if (cfg->alloc && !kf_bpf_loop()) { /* its program is the one built with bpf_loop */
		warnx_lf("--mode alloc needs a kernel with bpf_loop (5.17 or newer; this one lacks it): record "
			 "CPU time instead, or take a heap snapshot (lua-flame heap)");
		*exit_code = 2;
		return sampler_close(s), NULL;
	}
	if (configure(s, cfg, 1) && cfg->btf) {
		warnx_lf("the BTF file %s cannot be used: %s; it must be the BTF of the running kernel "
			 "(pahole --btf_encode_detached FILE vmlinux)", cfg->btf, strerror(errno));
		*exit_code = 2;
		return sampler_close(s), NULL;
	}
	if (!s->skel) {
		warnx_lf("cannot open the BPF program: %s", strerror(errno));
		goto fail;
	}
	int err = load(s, cfg);
	if (err && cfg->btf) {
		warnx_lf("loading the BPF program with the BTF file %s failed: %s; the file must be the BTF of the "
			 "running kernel (pahole --btf_encode_detached FILE vmlinux), rerun with LUA_FLAME_DEBUG=1 "
			 "for libbpf's words", cfg->btf, strerror(-err));
		*exit_code = 2;
		return sampler_close(s), NULL;
	}
	if (err) {
		warnx_lf("loading the BPF program failed: %s; the kernel needs BPF and BTF "
			 "(CONFIG_DEBUG_INFO_BTF), rerun with LUA_FLAME_DEBUG=1 for the verifier log",
			 strerror(-err));
		*exit_code = (err == -EPERM || err == -ENOSYS) ? 2 : 1;
		return sampler_close(s), NULL;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.fresh), on_fresh, s, NULL);
	if (!s->rb)
		warnx_lf("cannot read new stacks as they come (%s): Lua functions freed before the next "
			 "drain will show as " LF_LABEL_GONE, strerror(errno));
	return s;
fail:
	*exit_code = 1;
	sampler_close(s);
	return NULL;
}

int sampler_add_target(struct sampler *s, pid_t pid)
{
	__u32 key = (__u32)pid, val = 1;
	int rc = bpf_map_update_elem(bpf_map__fd(s->skel->maps.targets), &key, &val, BPF_ANY);
	if (!rc && !s->first_target_at)
		s->first_target_at = now_sec();
	return rc;
}

int sampler_alloc_prog_fd(const struct sampler *s)
{
	return bpf_program__fd(s->skel->progs.on_sample);
}

double sampler_first_target_at(const struct sampler *s)
{
	return s->first_target_at;
}

int sampler_setup_unwind(struct sampler *s, struct unwind_tables *ut)
{
	struct profile_bpf *k = s->skel;
	if (ut_attach_maps(ut, bpf_map__fd(k->maps.rows), bpf_map__max_entries(k->maps.rows),
			   bpf_map__fd(k->maps.rules), bpf_map__fd(k->maps.files),
			   bpf_map__max_entries(k->maps.files), bpf_map__fd(k->maps.procs)))
		return -1;
	/* tails: the native walk, the Lua walk, the sample's end (bpf/profile.bpf.c) */
	struct bpf_program *walk =
		s->half ? bpf_object__find_program_by_name(s->half, bpf_program__name(k->progs.unwind_user)) : NULL;
	int progs[3] = { bpf_program__fd(walk ? walk : k->progs.unwind_user), bpf_program__fd(k->progs.runtime_part),
			 bpf_program__fd(k->progs.end_sample) };
	for (__u32 key = 0; key < 3; key++)
		if (bpf_map_update_elem(bpf_map__fd(k->maps.tails), &key, &progs[key], BPF_ANY)) {
			warnx_lf("cannot install the unwinder programs: %s", strerror(errno));
			return -1;
		}
	return 0;
}

int sampler_map_fd(struct sampler *s, const char *name)
{
	return bpf_object__find_map_fd_by_name(s->skel->obj, name);
}

int sampler_take_rescans(struct sampler *s, pid_t *out, int *why, int max)
{
	int fd = bpf_map__fd(s->skel->maps.rescan), n = 0;
	__u32 key, val;
	while (n < max && bpf_map_get_next_key(fd, NULL, &key) == 0) {
		if (bpf_map_lookup_elem(fd, &key, &val))
			val = LF_RESCAN_CODE;
		bpf_map_delete_elem(fd, &key);
		why[n] = (int)val;
		out[n++] = (pid_t)key;
	}
	return n;
}

void sampler_keep_data_rescan(struct sampler *s, pid_t pid)
{
	__u32 key = (__u32)pid, val = LF_RESCAN_DATA;
	(void)bpf_map_update_elem(bpf_map__fd(s->skel->maps.rescan), &key, &val, BPF_NOEXIST);
}

void sampler_sleep_until(struct sampler *s, double t)
{
	double d = t - now_sec();
	if (d <= 0)
		return;
	if (!s || s->wake < 0 || !s->namer_on) {
		struct timespec ts = { (time_t)d, (long)((d - (double)(time_t)d) * 1e9) };
		nanosleep(&ts, NULL); /* interrupted by signals, by design */
		return;
	}
	struct pollfd p = { .fd = s->wake, .events = POLLIN };
	uint64_t n;
	if (poll(&p, 1, (int)(d * 1000) + 1) > 0)
		(void)read(s->wake, &n, sizeof(n)); /* clears it; nonblocking */
}

/* cpu-clock counts nanoseconds: a fixed period samples evenly, where frequency mode lets
 * the kernel retune the period as it goes. Wall mode also takes every context switch. */
static int open_cpu_event(int cpu, __u64 config, __u64 period)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = config,
		.sample_period = period,
	};
	return (int)syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens event config on every online CPU and attaches prog to each; 0 or an exit code. */
static int attach_per_cpu(struct sampler *s, struct bpf_program *prog, __u64 config, __u64 period,
			  int *pfds, struct bpf_link **links)
{
	int attached = 0;
	for (int cpu = 0; cpu < s->ncpu; cpu++)
		pfds[cpu] = -1;
	for (int cpu = 0; cpu < s->ncpu; cpu++) {
		pfds[cpu] = open_cpu_event(cpu, config, period);
		if (pfds[cpu] < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			int e = errno;
			warnx_lf("perf_event_open on CPU %d failed: %s; %s", cpu, strerror(e),
				 e == EACCES || e == EPERM
				 ? "run as root or with CAP_PERFMON, or lower kernel.perf_event_paranoid"
				 : "the kernel must support software perf events");
			return e == EACCES || e == EPERM ? 2 : 1;
		}
		links[cpu] = bpf_program__attach_perf_event(prog, pfds[cpu]);
		if (!links[cpu]) {
			warnx_lf("attaching the BPF program to CPU %d failed: %s", cpu, strerror(errno));
			return 1;
		}
		attached++;
	}
	if (!attached)
		return warnx_lf("no CPU could be sampled"), 1;
	return 0;
}

/* Wall mode: threads leaving a CPU, and threads switched in (the scheduler's tracepoint). */
static int attach_wall(struct sampler *s)
{
	s->sw_links = xcalloc((size_t)s->ncpu, sizeof(*s->sw_links));
	s->sw_pfds = xcalloc((size_t)s->ncpu, sizeof(*s->sw_pfds));
	int rc = attach_per_cpu(s, s->skel->progs.on_switch_out, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, s->sw_pfds,
				s->sw_links);
	if (rc)
		return rc;
	s->in_link = bpf_program__attach(s->skel->progs.on_switch_in);
	if (!s->in_link) {
		warnx_lf("attaching to the scheduler's sched_switch tracepoint failed: %s; --mode wall needs "
			 "it (BTF-enabled tracepoints, kernel 5.5 or later)", strerror(errno));
		return 1;
	}
	return 0;
}

#define LF_TICKS_PER_SAMPLE 4
#define LF_TICK_HZ_MAX 10000 /* ticks per second per CPU, at most */

int sampler_attach(struct sampler *s, int hz)
{
	s->ncpu = libbpf_num_possible_cpus();
	if (s->ncpu <= 0)
		return warnx_lf("cannot count CPUs"), 1;
	s->links = xcalloc((size_t)s->ncpu, sizeof(*s->links));
	s->pfds = xcalloc((size_t)s->ncpu, sizeof(*s->pfds));
	if (s->alloc) {
		for (int i = 0; i < s->ncpu; i++)
			s->pfds[i] = -1;
		return 0;
	}
	/* ticks per sample: enough that the sample after a tick that woke a target is as likely
	 * at any point of its work, few enough that idle CPUs are woken rarely */
	int fixed = getenv("LUA_FLAME_FIXED_PERIOD") != NULL; /* to show what they are for */
	__u32 k = fixed || hz >= LF_TICK_HZ_MAX ? 1 : LF_TICK_HZ_MAX / (__u32)hz;
	k = k > LF_TICKS_PER_SAMPLE ? LF_TICKS_PER_SAMPLE : k;
	s->skel->data->ticks_per_sample = k;
	__u64 period = 1000000000ULL / ((__u64)hz * k);
	int rc = attach_per_cpu(s, s->skel->progs.on_sample, PERF_COUNT_SW_CPU_CLOCK, period, s->pfds, s->links);
	if (rc)
		return rc;
	if (!fixed)
		s->jitter = period_jitter_start(s->pfds, s->ncpu, period);
	return s->wall_hz ? attach_wall(s) : 0;
}

void sampler_pause(struct sampler *s)
{
	period_jitter_stop(s->jitter);
	s->jitter = NULL;
	for (int i = 0; s->pfds && i < s->ncpu; i++)
		if (s->pfds[i] >= 0)
			ioctl(s->pfds[i], PERF_EVENT_IOC_DISABLE, 0);
	for (int i = 0; s->sw_pfds && i < s->ncpu; i++)
		if (s->sw_pfds[i] >= 0)
			ioctl(s->sw_pfds[i], PERF_EVENT_IOC_DISABLE, 0);
}

static void wait_for_programs(void)
{
	/* A program that read the old generation finishes within microseconds. */
	struct timespec ts = { 0, 2000000 };
	nanosleep(&ts, NULL);
}

#define DRAIN_BATCH 64

/* One stack of a drain, read from map fd whose values are vsize bytes, into a full record. */
static void drained(const struct lf_stack_key *k, const void *value, size_t vsize, struct lf_stack *full,
		    sampler_cb cb, void *ctx)
{
	if (vsize < sizeof(*full)) {
		memcpy(full, value, vsize);
		widen_small(full);
		value = full;
	}
	cb(k, value, ctx);
}

/* The old generations' stacks of map fd (values of vsize bytes), DRAIN_BATCH at a time: a
 * few system calls a drain, not two a stack. Returns how many were handed to cb, with *done
 * set if that was all of them; if not (kernels before 5.6 have no batches), the caller's walk
 * key by key does what is left. An old generation's entries no longer change, so reading them
 * and deleting them after is safe. */
static long drain_batch(struct sampler *s, int fd, size_t vsize, __u32 next_gen, sampler_cb cb, void *ctx,
			int *done)
{
	struct lf_stack_key keys[DRAIN_BATCH], old[DRAIN_BATCH];
	__u64 token = 0;
	long n = 0;
	if (!s->batch)
		s->batch = xmalloc(DRAIN_BATCH * sizeof(*s->batch));
	for (int first = 1;; first = 0) {
		__u32 count = DRAIN_BATCH, nold = 0;
		int err = bpf_map_lookup_batch(fd, first ? NULL : &token, &token, keys, s->batch, &count, NULL);
		if (err && errno != ENOENT) /* also ENOSPC: a bucket holds more than a batch */
			return n;
		for (__u32 i = 0; i < count; i++) {
			if (keys[i].gen == next_gen)
				continue;
			drained(&keys[i], (const char *)s->batch + i * vsize, vsize, s->buf, cb, ctx);
			old[nold++] = keys[i];
		}
		n += nold;
		__u32 deleted = nold;
		if (nold && bpf_map_delete_batch(fd, old, &deleted, NULL))
			for (__u32 i = deleted; i < nold; i++)
				bpf_map_delete_elem(fd, &old[i]);
		if (err) { /* ENOENT: the map's end */
			*done = 1;
			return n;
		}
	}
}

/* drain_batch, then key by key what it did not do: every stack on old kernels, the rest
 * after an error. */
static long drain_map(struct sampler *s, int fd, size_t vsize, __u32 next_gen, sampler_cb cb, void *ctx)
{
	int done = 0;
	long n = drain_batch(s, fd, vsize, next_gen, cb, ctx, &done);
	size_t cap = 256, nk = 0;
	struct lf_stack_key *keys = xmalloc(cap * sizeof(*keys)), k, *prev = NULL;
	while (!done && bpf_map_get_next_key(fd, prev, &k) == 0 && nk < 10000000) {
		if (nk == cap)
			keys = xrealloc(keys, (cap *= 2) * sizeof(*keys));
		keys[nk] = k;
		prev = &keys[nk++];
	}
	for (size_t i = 0; i < nk; i++) {
		if (keys[i].gen == next_gen)
			continue;
		if (bpf_map_lookup_and_delete_elem(fd, &keys[i], s->batch) != 0) {
			if (bpf_map_lookup_elem(fd, &keys[i], s->batch) != 0)
				continue;
			bpf_map_delete_elem(fd, &keys[i]);
		}
		drained(&keys[i], s->batch, vsize, s->buf, cb, ctx);
		n++;
	}
	free(keys);
	return n;
}

long sampler_drain(struct sampler *s, sampler_cb cb, void *ctx)
{
	__u32 next_gen = s->gen + 1;
	s->skel->bss->cur_gen = next_gen;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	wait_for_programs();
	long n = drain_map(s, bpf_map__fd(s->skel->maps.stacks_small), sizeof(struct lf_stack_small), next_gen,
			   cb, ctx);
	n += drain_map(s, bpf_map__fd(s->skel->maps.stacks), sizeof(struct lf_stack), next_gen, cb, ctx);
	s->gen = next_gen;
	return n;
}

/* Credits one parked thread's time off the CPU up to now_ns to its stack. */
static uint64_t settle_one(struct sampler *s, __u32 tid, const struct lf_parked *p, uint64_t now_ns)
{
	int kfd = bpf_map__fd(s->skel->maps.stacks);
	unsigned __int128 units = (unsigned __int128)(now_ns - p->since) * (unsigned)s->wall_hz + p->carry;
	uint64_t n = (uint64_t)(units / 1000000000u);
	struct lf_stack_key key = p->key;
	key.gen = s->skel->bss->cur_gen;
	if (!n)
		return 0;
	if (bpf_map_lookup_elem(kfd, &key, s->buf) == 0)
		s->buf->count += n;
	else if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.off_stacks), &tid, s->buf) == 0)
		s->buf->count = n;
	else
		return 0;
	return bpf_map_update_elem(kfd, &key, s->buf, BPF_ANY) ? 0 : n;
}

void sampler_wall_settle(struct sampler *s)
{
	if (!s->wall_hz)
		return;
	bpf_link__destroy(s->in_link); /* no thread is credited twice */
	s->in_link = NULL;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	int tfd = bpf_map__fd(s->skel->maps.off_times);
	__u32 tid, *prev = NULL;
	struct lf_parked p;
	while (bpf_map_get_next_key(tfd, prev, &tid) == 0) {
		prev = &tid;
		if (bpf_map_lookup_elem(tfd, &tid, &p) == 0 && p.since && p.since < now_ns)
			s->off_settled += settle_one(s, tid, &p, now_ns);
	}
}

uint64_t sampler_stat(struct sampler *s, unsigned i)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *v = xcalloc((size_t)(ncpu > 0 ? ncpu : 1), sizeof(*v)), sum = 0;
	__u32 key = i;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.stats), &key, v) == 0)
		for (int c = 0; c < ncpu; c++)
			sum += v[c];
	free(v);
	return sum + (i == LF_STAT_OFFCPU ? s->off_settled : 0);
}

void sampler_stats(struct sampler *s, uint64_t out[LF_STAT_MAX])
{
	for (unsigned i = 0; i < LF_STAT_MAX; i++)
		out[i] = sampler_stat(s, i);
}

void sampler_close(struct sampler *s)
{
	if (!s)
		return;
	period_jitter_stop(s->jitter);
	for (int i = 0; s->links && i < s->ncpu; i++) {
		bpf_link__destroy(s->links[i]);
		if (s->pfds[i] >= 0)
			close(s->pfds[i]);
	}
	for (int i = 0; s->sw_links && i < s->ncpu; i++) {
		bpf_link__destroy(s->sw_links[i]);
		if (s->sw_pfds[i] >= 0)
			close(s->sw_pfds[i]);
	}
	bpf_link__destroy(s->in_link);
	free(s->links);
	free(s->pfds);
	free(s->sw_links);
	free(s->sw_pfds);
	s->fresh_cb = NULL;
	sampler_stop_naming(s);
	if (s->namer_stop >= 0)
		close(s->namer_stop);
	if (s->wake >= 0)
		close(s->wake);
	ring_buffer__free(s->rb);
	unload(s);
	free(s->buf);
	free(s->batch);
	free(s->fbuf);
	free(s);
}
