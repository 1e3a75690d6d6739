/* The processes a recording follows: those given with -p, their children (present at
 * the start and forked later, with --children), and a command lua-flame starts. Children
 * and the command are watched: a new program after exec gets new unwind tables, a new
 * name and a new look for its Lua runtime. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime.h"
#include "runtime_attach.h"
#include "status.h"
#include "targets.h"
#include "util.h"

void targets_exe_identity(pid_t pid, uint64_t *dev, uint64_t *ino)
{
	char path[64];
	struct stat sb;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &sb)) {
		*dev = *ino = 0;
		return;
	}
	*dev = sb.st_dev;
	*ino = sb.st_ino;
}

/* Root frame: the process name, or "name-PID" with --pids (no ';' or ' ' in either). */
void targets_name(struct targets *s, pid_t pid)
{
	struct stack_target *st = stacks_target(s->sc, pid);
	if (!st)
		return;
	char comm[64];
	proc_comm(pid, comm, sizeof(comm));
	if (!comm[0])
		return; /* gone: keep the name it had */
	if (s->o->pid_roots)
		snprintf(st->comm, sizeof(st->comm), "%.40s-%d", comm, (int)pid);
	else
		snprintf(st->comm, sizeof(st->comm), "%s", comm);
}

/* now is when it joined, 0 for targets there at the start (their Lua is attached then). */
/* Where a Lua target keeps its data changes as it allocates: read again every few seconds
 * (2, and twice as long each time it had not changed, up to 16), and soon when a sample
 * missed its VM's state (in a thread's new arena, say: each sample until the next read
 * loses its Lua frames). How soon: at the first ask, after 50 ms or fifty times what the
 * last read took (its cost near 2% of a CPU), whichever is longer; twice as long after each
 * asked read that found nothing new (a sample in the VM can miss a state that is there), up
 * to a second. */
#define DATA_EVERY 2.0
#define DATA_EVERY_MAX 16.0
#define DATA_SOONEST 0.05
#define DATA_SOONEST_MAX 1.0
#define DATA_COST_SHARE 50.0

struct target *targets_new(struct targets *s, pid_t pid, enum target_kind kind, double now)
{
	s->t = xrealloc(s->t, (s->nt + 1) * sizeof(*s->t));
	struct target *t = &s->t[s->nt++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->kind = kind;
	t->fresh_until = now > 0 ? now + 1.0 : 0;
	t->data_every = DATA_EVERY;
	t->data_soonest = DATA_SOONEST;
	targets_exe_identity(pid, &t->exe_dev, &t->exe_ino);
	return t;
}

static int has_lua(struct targets *s, pid_t pid)
{
	struct stack_target *st = stacks_target(s->sc, pid);
	return st && st->rt;
}

/* A target that joined late gets its Lua attached once the runtime is mapped and a VM
 * exists, so that runtime_attach reports the VM, or at once for a family whose VM the BPF
 * side knows by its shape (PUC Lua: no sample of a new command's first Lua code is lost);
 * when the window closes, as it is. */

/* A LuaJIT runtime without a VM yet is looked at again, less often each time (PUC Lua
 * runtimes stay attached and runtime_refresh rescans them). */
static void note_attach(struct target *t, enum runtime_attach_result r, double now)
{
	t->lua_retry_gap = r == RUNTIME_NO_VM ? 0.25 : 0;
	t->lua_retry_at = r == RUNTIME_NO_VM ? now + t->lua_retry_gap : 0;
}

static void try_lua(struct targets *s, struct target *t, double now)
{
	if (t->lua_settled || has_lua(s, t->pid))
		return;
	if (now < t->fresh_until) {
		if (now < t->lua_next_look) /* a look reads every mapped file: ten a second at most */
			return;
		t->lua_next_look = now + 0.1;
		if (!runtime_ready(t->pid))
			return;
	}
	status_clear();
	note_attach(t, runtime_attach(s->sc, s->smp, s->ut, t->pid, now < t->fresh_until), now);
	t->lua_settled = 1;
}

static void retry_lua(struct targets *s, struct target *t, double now)
{
	if (!t->lua_retry_at || now < t->lua_retry_at || has_lua(s, t->pid))
		return;
	if (runtime_ready(t->pid)) {
		status_clear();
		note_attach(t, runtime_attach(s->sc, s->smp, s->ut, t->pid, 0), now);
		return;
	}
	t->lua_retry_gap = t->lua_retry_gap < 1.0 ? t->lua_retry_gap * 2 : 2.0;
	t->lua_retry_at = now + t->lua_retry_gap;
}

/* A process that joined while recording: tables first, so its first samples unwind. Its
 * program is noted before its maps and name are read: an exec after that (a shell's child
 * becoming a Lua worker) is then seen by watch_exec, which reads them again. */
static void add_late_target(struct targets *s, pid_t pid, double now)
{
	struct target *t = targets_new(s, pid, TARGET_CHILD, now);
	ut_add_pid(s->ut, pid);
	ut_sync(s->ut);
	stacks_add_target(s->sc, pid);
	targets_name(s, pid);
	sampler_add_target(s->smp, pid);
	status_clear();
	info_lf("PID %d (%s) joined: a child of a target; profiling it too", (int)pid,
		stacks_target(s->sc, pid)->comm);
	try_lua(s, t, now);
}

static pid_t *target_pids(struct targets *s)
{
	pid_t *v = xmalloc((s->nt ? s->nt : 1) * sizeof(*v));
	for (size_t i = 0; i < s->nt; i++)
		v[i] = s->t[i].pid;
	return v;
}

static void follow_children(struct targets *s, double now)
{
	pid_t found[64];
	pid_t *pids = target_pids(s);
	size_t n = children_scan(&s->cs, pids, s->nt, found, 64);
	free(pids);
	for (size_t i = 0; i < n; i++)
		add_late_target(s, found[i], now);
}

/* The old program's runtime means nothing after exec. */
static void forget_lua(struct targets *s, pid_t pid)
{
	runtime_forget(s->sc, s->smp, pid); /* the kernel side must not walk the old program's VM */
}

/* A target that ran exec is a new program: new tables, new name, look for
 * Lua again. */
static void watch_exec(struct targets *s, double now)
{
	for (size_t i = 0; i < s->nt; i++) {
		struct target *t = &s->t[i];
		uint64_t dev, ino;
		targets_exe_identity(t->pid, &dev, &ino);
		if (ino && (dev != t->exe_dev || ino != t->exe_ino)) {
			t->exe_dev = dev, t->exe_ino = ino;
			ut_add_pid(s->ut, t->pid);
			ut_sync(s->ut);
			targets_name(s, t->pid);
			t->fresh_until = now + 1.0;
			t->lua_settled = 0;
			forget_lua(s, t->pid);
		}
		try_lua(s, t, now);
	}
}

int targets_fresh(const struct targets *s, double now)
{
	for (size_t i = 0; i < s->nt; i++)
		if ((!s->t[i].lua_settled || s->t[i].kind == TARGET_COMMAND) && now < s->t[i].fresh_until + 0.1)
			return 1;
	return 0;
}

int targets_alive(const struct targets *s)
{
	for (size_t i = 0; i < s->nt; i++)
		if (proc_state(s->t[i].pid) == PROC_ALIVE)
			return 1;
	return 0;
}

/* When target t's data is read again: soon when a sample asked, else at its pace. */
static double data_due(const struct target *t)
{
	double gap = t->data_asked ? t->data_soonest : t->data_every;
	double cost = DATA_COST_SHARE * t->data_cost;
	return t->data_at + (t->data_asked && cost > gap ? cost : gap);
}

static int refresh_data(struct targets *s, struct target *t, double now)
{
	if (!has_lua(s, t->pid)) {
		t->data_asked = 0; /* its runtime was forgotten (exec): nothing to look for */
		return 0;
	}
	if (now < data_due(t)) {
		if (t->data_asked) /* until it is due, the BPF side's asks neither pile up nor wake us */
			sampler_keep_data_rescan(s->smp, t->pid);
		return 0;
	}
	t->data_at = now;
	double t0 = now_sec();
	int rc = ut_refresh_data(s->ut, t->pid);
	t->data_cost = now_sec() - t0;
	if (t->data_asked) {
		double longer = t->data_soonest * 2 < DATA_SOONEST_MAX ? t->data_soonest * 2 : DATA_SOONEST_MAX;
		t->data_soonest = rc > 0 ? DATA_SOONEST : longer;
		t->data_asked = 0;
	}
	t->data_every = rc ? DATA_EVERY : t->data_every * 2 < DATA_EVERY_MAX ? t->data_every * 2 : DATA_EVERY_MAX;
	return rc > 0;
}

double targets_next_data(const struct targets *s)
{
	double at = 1e300;
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].data_asked && data_due(&s->t[i]) < at)
			at = data_due(&s->t[i]);
	return at;
}

static struct target *find_target(struct targets *s, pid_t pid)
{
	for (size_t j = 0; j < s->nt; j++)
		if (s->t[j].pid == pid)
			return &s->t[j];
	return NULL;
}

/* Processes that ran code outside their known mappings (dlopen, new JIT regions) get
 * their maps re-read and tables built for the new files; a child or the command without
 * Lua may just have loaded it, so it is looked at again. */
void targets_refresh_tables(struct targets *s, double now)
{
	pid_t pids[64];
	int why[64], sync = 0;
	int n = sampler_take_rescans(s->smp, pids, why, 64);
	for (int i = 0; i < n; i++) {
		struct target *t = find_target(s, pids[i]);
		if (why[i] == LF_RESCAN_DATA) {
			if (t)
				t->data_asked = 1;
			continue;
		}
		ut_add_pid(s->ut, pids[i]);
		sync = 1;
		if (t && !has_lua(s, pids[i])) {
			t->fresh_until = now + 1.0;
			t->lua_settled = 0;
		}
	}
	for (size_t j = 0; j < s->nt; j++)
		sync |= refresh_data(s, &s->t[j], now);
	if (sync)
		ut_sync(s->ut);
}

/* Children present at start join like the -p targets, before sampling begins. */
void targets_add_children(struct targets *s)
{
	pid_t found[MAX_TARGETS];
	pid_t *pids = target_pids(s);
	size_t k = children_scan(&s->cs, pids, s->nt, found, MAX_TARGETS);
	free(pids);
	for (size_t i = 0; i < k; i++) {
		targets_new(s, found[i], TARGET_CHILD, 0); /* its program first, as above */
		ut_add_pid(s->ut, found[i]);
	}
}

void targets_prepare(struct targets *s)
{
	for (size_t i = 0; i < s->nt; i++)
		if (s->t[i].kind != TARGET_COMMAND) { /* added before, its Lua is looked for after exec */
			stacks_add_target(s->sc, s->t[i].pid);
			targets_name(s, s->t[i].pid);
		}
}

void targets_attach(struct targets *s)
{
	for (size_t i = 0; i < s->nt; i++) {
		pid_t pid = s->t[i].pid;
		if (s->t[i].kind == TARGET_COMMAND)
			continue;
		/* Maps again: libraries loaded while the BPF program was being loaded (which can
		 * take seconds) must not start as unmapped code; known files are not re-read. */
		ut_add_pid(s->ut, pid);
		ut_sync(s->ut);
		note_attach(&s->t[i], runtime_attach(s->sc, s->smp, s->ut, pid, 0), now_sec());
		s->t[i].lua_settled = 1;
		/* Sampled from now on, its tables and its Lua VM known; sampling is on already,
		 * so the first target's samples do not wait for the others' VMs to be found. */
		sampler_add_target(s->smp, pid);
	}
}

/* A target that died between the checks and the start of sampling. */
int targets_check_alive(struct targets *s)
{
	int alive = 0, given = 0;
	for (size_t i = 0; i < s->nt; i++) {
		if (s->t[i].kind != TARGET_GIVEN)
			continue; /* children and a command may well be done already */
		given++;
		if (proc_state(s->t[i].pid) == PROC_ALIVE) {
			alive++;
			continue;
		}
		warnx_lf("PID %d (%s) exited while lua-flame was starting, before sampling began",
			 (int)s->t[i].pid, stacks_target(s->sc, s->t[i].pid)->comm);
	}
	if (alive || !given)
		return 0;
	warnx_lf("nothing to profile; if the program exits soon after it starts, let lua-flame "
		 "start it: lua-flame [options] -- COMMAND ARGS...");
	return 2;
}

void targets_add_command(struct targets *s, pid_t pid, int sample_now)
{
	if (sample_now)
		sampler_add_target(s->smp, pid);
	stacks_add_target(s->sc, pid);
	targets_new(s, pid, TARGET_COMMAND, now_sec());
}

void targets_command_mapped(struct targets *s, pid_t pid, int complete)
{
	ut_add_pid(s->ut, pid);
	ut_sync(s->ut);
	sampler_add_target(s->smp, pid); /* from its first instruction, with its tables */
	targets_name(s, pid);
	for (size_t i = 0; complete && i < s->nt; i++) {
		struct target *t = &s->t[i];
		if (t->kind != TARGET_COMMAND || t->pid != pid || has_lua(s, pid) || !runtime_ready(pid))
			continue;
		note_attach(t, runtime_attach(s->sc, s->smp, s->ut, pid, 1), now_sec());
		t->lua_settled = 1;
	}
}

void targets_command_running(struct targets *s, pid_t pid, double now)
{
	ut_add_pid(s->ut, pid);
	ut_sync(s->ut);
	targets_name(s, pid);
	for (size_t i = 0; i < s->nt; i++) {
		struct target *t = &s->t[i];
		if (t->kind != TARGET_COMMAND)
			continue;
		targets_exe_identity(pid, &t->exe_dev, &t->exe_ino); /* the new program's, not lua-flame's */
		t->fresh_until = now + 1.0;
	}
}

void targets_follow(struct targets *s, double now)
{
	if (s->o->children)
		follow_children(s, now);
	watch_exec(s, now);
	for (size_t i = 0; i < s->nt; i++)
		retry_lua(s, &s->t[i], now);
}

void targets_free(struct targets *s)
{
	children_free(&s->cs);
	free(s->t);
	s->t = NULL;
	s->nt = 0;
}
