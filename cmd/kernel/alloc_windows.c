/* Alloc mode's windows (alloc_windows.h): per-thread uprobe perf events on the VMs' allocation
 * functions, all off but for short windows a thread of lua-flame's own opens at random moments. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "alloc_windows.h"
#include "proc.h"
#include "util.h"

#define AW_MAX_PROBES 64
#define AW_MAX_TASKS 4096
/* The most of the time the probes may be in the targets' code, from their events' opening to
 * their freeing: a thread that does little but allocate is held that long. */
#define AW_BUDGET 0.04

struct aw_probe { pid_t pid; uint64_t addr, off; char path[96]; };
struct aw_task { pid_t tid; int probe, fd; };

struct alloc_windows {
	int prog_fd, pmu_type;
	double window, period;
	struct aw_probe probes[AW_MAX_PROBES];
	int nprobes;
	struct aw_probe refused[AW_MAX_PROBES]; /* allocators not in a mapped file, said once */
	int nrefused;
	struct aw_task *tasks;
	int ntasks;
	pthread_mutex_t lock;
	pthread_cond_t probed; /* a probe added, or the windows stopping (stopping set) */
	int stopping;
	pthread_t thread;
	int running, stop_pipe[2];
	double started, stopped, open, held;
	int windows, threads; /* windows opened; the most threads one probed */
	uint64_t rng;
};

/* The uprobe PMU's type number, or -1 (a kernel without CONFIG_UPROBE_EVENTS). */
static int uprobe_pmu(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	int t = -1;
	if (f && fscanf(f, "%d", &t) != 1)
		t = -1;
	if (f)
		fclose(f);
	return t;
}

struct alloc_windows *aw_open(int prog_fd, double window, double period)
{
	int type = uprobe_pmu();
	if (type < 0) {
		warnx_lf("--mode alloc needs uprobe events (CONFIG_UPROBE_EVENTS), which this kernel lacks "
			 "(/sys/bus/event_source/devices/uprobe/type is missing)");
		return NULL;
	}
	struct alloc_windows *w = xcalloc(1, sizeof(*w));
	w->prog_fd = prog_fd;
	w->pmu_type = type;
	w->window = window;
	w->period = period > window ? period : window * 2;
	w->tasks = xcalloc(AW_MAX_TASKS, sizeof(*w->tasks));
	w->stop_pipe[0] = w->stop_pipe[1] = -1;
	w->rng = rand_seed();
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->probed, NULL);
	return w;
}

int aw_probe(struct alloc_windows *w, pid_t pid, uint64_t addr)
{
	for (int i = 0; i < w->nprobes; i++)
		if (w->probes[i].pid == pid && w->probes[i].addr == addr)
			return 0;
	for (int i = 0; i < w->nrefused; i++)
		if (w->refused[i].pid == pid && w->refused[i].addr == addr)
			return -1; /* said once */
	struct proc_maps pm;
	if (proc_read_maps(pid, &pm))
		return warnx_lf("PID %d: cannot read its maps to probe its allocator: %s", (int)pid, strerror(errno)), -1;
	const struct mapping *m = proc_maps_find(&pm, addr);
	int ok = m && m->exec && m->path[0] == '/' && w->nprobes < AW_MAX_PROBES;
	if (ok) {
		struct aw_probe *p = &w->probes[w->nprobes];
		p->pid = pid;
		p->addr = addr;
		p->off = addr - m->start + m->pgoff;
		/* through the process's own view of the file: deleted, replaced or in a container */
		snprintf(p->path, sizeof(p->path), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		pthread_mutex_lock(&w->lock);
		w->nprobes++;
		pthread_cond_signal(&w->probed);
		pthread_mutex_unlock(&w->lock);
	}
	proc_maps_free(&pm);
	if (!ok && w->nrefused < AW_MAX_PROBES)
		w->refused[w->nrefused++] = (struct aw_probe){ .pid = pid, .addr = addr };
	if (!ok)
		warnx_lf("PID %d: its Lua allocator at 0x%llx is not in a mapped file; no allocations of it "
			 "are sampled", (int)pid, (unsigned long long)addr);
	return ok ? 0 : -1;
}

static int open_event(const struct alloc_windows *w, const struct aw_probe *p, pid_t tid)
{
	struct perf_event_attr a = {
		.type = (__u32)w->pmu_type,
		.size = sizeof(a),
		.config1 = (__u64)(uintptr_t)p->path,
		.config2 = p->off,
		.disabled = 1,
	};
	int fd = (int)syscall(__NR_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_BPF, w->prog_fd)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int has_task(const struct alloc_windows *w, int probe, pid_t tid)
{
	for (int i = 0; i < w->ntasks; i++)
		if (w->tasks[i].probe == probe && w->tasks[i].tid == tid)
			return 1;
	return 0;
}

/* Events for the threads of probe k not seen yet. */
static void add_threads(struct alloc_windows *w, int k)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)w->probes[k].pid);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d)) && w->ntasks < AW_MAX_TASKS;) {
		pid_t tid = (pid_t)atoi(e->d_name);
		if (tid <= 0 || has_task(w, k, tid))
			continue;
		int fd = open_event(w, &w->probes[k], tid);
		if (fd >= 0)
			w->tasks[w->ntasks++] = (struct aw_task){ tid, k, fd };
	}
	if (d)
		closedir(d);
}

static void switch_all(struct alloc_windows *w, unsigned long req)
{
	for (int i = 0; i < w->ntasks; i++)
		ioctl(w->tasks[i].fd, req, 0);
}

/* Ends a window: a uprobe's breakpoint stays in the target's code, and traps at every call,
 * for as long as its event exists, enabled or not; so the events live only in the window. */
static void close_all(struct alloc_windows *w)
{
	for (int i = 0; i < w->ntasks; i++) {
		close(w->tasks[i].fd);
	}
	w->ntasks = 0;
}

/* Waits s seconds or until stopped; returns 1 when stopped. */
static int wait_or_stop(struct alloc_windows *w, double s)
{
	return wait_or_readable(w->stop_pipe[0], s);
}

/* The mean time from one window's end to the next one's start: the period asked for, or
 * longer when the last window held the probes longer than AW_BUDGET of the time allows. A
 * probe's breakpoint stays in the code until its event is freed, which waits for the BPF
 * side's grace period: tens of milliseconds after the window, through which the target's
 * calls still trap. */
static double next_gap(const struct alloc_windows *w, double held)
{
	double every = held / AW_BUDGET > w->period ? held / AW_BUDGET : w->period;
	return every - held;
}

/* Waits until some VM's allocator is probed (a command's VM is found some time after it
 * starts); 1 when stopped meanwhile. */
static int wait_for_probes(struct alloc_windows *w)
{
	pthread_mutex_lock(&w->lock);
	while (!w->nprobes && !w->stopping)
		pthread_cond_wait(&w->probed, &w->lock);
	int stop = !w->nprobes;
	pthread_mutex_unlock(&w->lock);
	return stop;
}

/* A window opens at a random moment of each period (uniform gaps of 0 to twice the mean),
 * so that the windows fall on every phase of a periodic workload alike. */
static void *windows_main(void *arg)
{
	struct alloc_windows *w = arg;
	double held = 0;
	for (;;) {
		/* the first window within the first second of there being a VM: a short run gets one */
		if (wait_for_probes(w))
			break;
		double r = rand_unit(&w->rng);
		if (wait_or_stop(w, held ? 2.0 * next_gap(w, held) * r : r))
			break;
		pthread_mutex_lock(&w->lock);
		double t0 = now_sec();
		for (int k = 0; k < w->nprobes; k++)
			add_threads(w, k);
		if (w->ntasks > w->threads)
			w->threads = w->ntasks;
		double on = now_sec();
		switch_all(w, PERF_EVENT_IOC_ENABLE);
		pthread_mutex_unlock(&w->lock);
		int stop = wait_or_stop(w, w->window);
		pthread_mutex_lock(&w->lock);
		switch_all(w, PERF_EVENT_IOC_DISABLE);
		w->open += now_sec() - on;
		close_all(w);
		held = now_sec() - t0;
		w->held += held;
		w->windows++;
		pthread_mutex_unlock(&w->lock);
		if (stop)
			break;
	}
	return NULL;
}

void aw_start(struct alloc_windows *w)
{
	if (w->running || pipe2(w->stop_pipe, O_CLOEXEC))
		return;
	w->started = now_sec();
	w->running = start_helper(&w->thread, windows_main, w);
}

static void result(const struct alloc_windows *w, struct aw_result *r)
{
	memset(r, 0, sizeof(*r));
	r->elapsed = (w->stopped ? w->stopped : now_sec()) - w->started;
	r->open = w->open;
	r->held = w->held;
	r->probes = w->nprobes;
	r->windows = w->windows;
	r->threads = w->threads;
}

void aw_stop(struct alloc_windows *w, struct aw_result *r)
{
	if (w->running) {
		pthread_mutex_lock(&w->lock);
		w->stopping = 1;
		pthread_cond_signal(&w->probed);
		pthread_mutex_unlock(&w->lock);
		(void)!write(w->stop_pipe[1], "x", 1);
		pthread_join(w->thread, NULL);
		w->running = 0;
		w->stopped = now_sec();
	}
	result(w, r);
}

void aw_close(struct alloc_windows *w)
{
	if (!w)
		return;
	if (w->running) {
		struct aw_result r;
		aw_stop(w, &r);
	}
	close_all(w);
	for (int i = 0; i < 2; i++)
		if (w->stop_pipe[i] >= 0)
			close(w->stop_pipe[i]);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->probed);
	free(w->tasks);
	free(w);
}
