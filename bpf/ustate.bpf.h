/* The state of one sample's user-stack walk (native unwinder and runtime walkers), kept in a
 * per-CPU map between tail calls, and the native unwinder's tables and lookups. */
#ifndef LF_USTATE_BPF_H
#define LF_USTATE_BPF_H
#include "config.bpf.h"
#include "unwind.h"
#include "lua.h"
#include "search.h"
#include "load.h"
#include "stage_time.bpf.h" /* before the first user read: bench-stages.sh counts them */
#include "puc_state.bpf.h"     /* each runtime family's member of struct lf_ustate */
#include "luajit_state.bpf.h"

struct lf_lpos { __u64 L; __u32 frame; __u32 thread; };

#define LF_FRAME_SLOTS 8 /* stack words under a CFA a frame needs at most (a power of two) */
#define LF_WIN_WORDS 256 /* stack words read ahead at once (a power of two) */
#define LF_PAGE_MIN 4096 /* the smallest page size of every supported architecture */
#define LF_NDELTA 256    /* native words' note_run entries (a power of two above LF_MAX_NATIVE) */

/* What a family's hook on a plain frame of its VM's core looked at and found, kept with the
 * frame in the walk memo (memo_frame.bpf.h) so that a replay can tell whether the state is the
 * same and reuse the answer: a key of what it looked at, what it found, the frame's pc in the
 * core's file, and whether the host entered the VM there. */
struct lf_core_note {
	__u64 key, val;
	__u32 pc, entry;
};

struct lf_ustate {
	__u64 ip, sp, bp;
	__u32 n;      /* frames walked; words in the stack record once the walk is done */
	__u32 cur;    /* word of the current frame (nat_slot of n - 1) */
	__u8 exact;   /* ip is exact, not a return address */
	__u8 done;
	__u16 tails;
	__u32 mark;   /* lf_mark that ended the walk, 0 if none */
	__u32 core_file;  /* file of the Lua core, LF_FILE_NONE without Lua */
	__u32 runtime;    /* LF_RT_*: which family's walker the process needs */
	__u64 vm_base, vm_pc, leaf_sp; /* LuaJIT interpreter's BASE and PC registers at the sample */
	__u64 vm_ret_base;             /* and BASE as a return found it (arch_regs_from_sample) */
	__u32 vm_unknown; /* the thread runs a VM not among those user space found */
	__u32 lua_from;   /* first word of the Lua part in the record */
	__u64 memo_key, memo_ptr;    /* last function fingerprinted in this sample */
	__u32 memo_fp, memo_cfn;     /* its fingerprint; LuaJIT: whether it is a function, a C one's ffid */
	__u32 nlpos, nthreads;   /* entries of lpos and threads set in this sample */
	__u32 lua_elided, lua_depth; /* lua_States whose walk left frames out / lost the root */
	__u32 lua_short;             /* lua_States walked without bpf_loop */
	/* walk_memo.bpf.h: the memo frame tried last (the one replayed from, while replaying), 1 +
	 * where the last run of plain frames noted started and 1 + where it ends so far (0: none),
	 * whether the walk's rest was replayed, and the frame pointer as the replay carries it;
	 * frames walked when a replay began, and how many of the memo's frames from replay_k on
	 * still want the runtime's hooks (0: none) */
	__u32 replay_k, plain_run, plain_end, replayed;
	__u32 replay_n0, replay_hooks;
	__u64 replay_bp;
	__u64 weight; /* what the sample counts for: 1 (a CPU sample), or an allocation's bytes */
	/* Ring of the Lua walk: entries stored, next entry to emit. In the map value, not in
	 * the walker's stack frame, so that the verifier does not follow them as constants. */
	__u32 ring_n, ring_at;
	/* Whether the ring is being emitted, here for the same reason: verifiers before 6.7 check
	 * a bpf_loop callback once, from the caller's state, and would take a flag on the caller's
	 * stack for the constant 0. */
	__u32 walk_flushing, walk_pad;
	/* Kept last and not cleared per sample: the outermost Lua frames of a deep walk, as a
	 * ring, until the walk reaches the root (PUC: CallInfo addresses; LuaJIT: word pairs). */
	__u64 ring[2 * LF_LUA_OUTER];
	__u64 native_ring[LF_NATIVE_OUTER]; /* outermost native frames in order, while folding a deep stack */
	/* Read into before each use, so past the part cleared per sample: a Proto's fingerprinted
	 * fields, and its chunk name's header (a GCfunc's before that). */
	__u8 fp_pbuf[LF_FP_BUF + 8];
	__u8 fp_sbuf[LF_FP_BUF + 8];
	/* Kept from sample to sample, past the part cleared per sample: the last mapping found,
	 * index m_idx of process m_pid's entry as user space wrote it the m_gen-th time (m_end 0:
	 * none), the last thread stack mapping found [sr_lo, sr_hi) (sr_hi 0: none) and the part
	 * of it a read ahead could not read [sr_bad_lo, sr_bad_hi) (stack_window), and the last
	 * row found, rule r_rule for [r_lo, r_hi) of file r_file, its label run starting at r_run
	 * (a file's rows never change once loaded). The next sample mostly starts in the same ones. */
	__u64 m_start, m_end, sr_lo, sr_hi, sr_bad_lo, sr_bad_hi;
	__u32 m_idx, m_pid, m_gen, r_file;
	__u32 r_lo, r_hi, r_rule, r_valid, r_run;
	/* walk_memo.bpf.h: bit i, which of slot i's two memos is replayed from (the other one is
	 * recorded into); the sample's slot (set with stack_lo) */
	__u32 replay_from, memo_slot;
	/* Set for each step before read (walk_memo.bpf.h): whether the frame is plain and in the
	 * Lua core, the walk's sp and bp on reaching it, and its family's note of a core frame. */
	__u32 step_plain, step_core;
	__u64 step_sp, step_bp;
	struct lf_core_note step_note;
	/* Where lua_States ran, and which they are (lf_note_position_at): past the part cleared
	 * per sample, since only the first nlpos and nthreads entries are ever read. */
	struct lf_lpos lpos[LF_MAX_LPOS];
	__u64 threads[LF_MAX_LTHREADS];
	__u64 win[LF_WIN_WORDS]; /* memory from win_lo up, win_len bytes (stack_window, array_window_down) */
	/* Set by rt_begin: whether the frame the walk steps to next is where a host entered the
	 * VM, as a family's step found it. */
	__u32 entry_next, entry_pad;
	/* Set when the native walk starts: the sampled thread's stack mapping (0, 0: not known),
	 * and what the window holds (win, read last by stack_window or array_window_down). */
	__u64 stack_lo, stack_hi, win_lo;
	__u64 lr; /* arm64: x30 of the frame whose registers are exact (set with them) */
	/* Entries of the Lua walk's ring left to emit once it reached the root: in the map value,
	 * as walk_flushing is (set before it is read, so not cleared per sample). On the walker's
	 * stack, verifiers before 6.7 took it for the 0 it starts as, and dropped the emitting. */
	__u32 ring_left, ring_pad;
	/* Also past the part cleared per sample: the callee-saved registers (arch.h) as recovered
	 * for the current frame, set whole when the walk starts. */
	__u64 regs[LF_NSAVED];
	__u32 win_len, win_pad;
	/* note_run's answer for each native word written in this sample (set with the word) */
	__u32 ndelta[LF_NDELTA];
	__u64 window_val; /* lf_window_read's answer */
	/* Each runtime family's own state, past the part cleared per sample: its begin hook
	 * (rt_begin) clears what must start empty. */
	struct lf_puc_ustate puc;
	struct lf_lj_ustate lj;
};

/* Word of the d-th frame walked: the innermost frames in place, then a ring holding the
 * last LF_NATIVE_OUTER frames walked, which are the outermost once the walk ends. */
static __always_inline __u32 nat_slot(__u32 d)
{
	return d < LF_NATIVE_INNER ? d : LF_NATIVE_INNER + ((d - LF_NATIVE_INNER) & (LF_NATIVE_OUTER - 1));
}

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* sized by user space */
	__type(key, __u32);
	__type(value, struct lf_row);
} rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, LF_MAX_RULES);
	__type(key, __u32);
	__type(value, struct lf_rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* sized by user space */
	__type(key, __u32);
	__type(value, struct lf_file);
} files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_proc);
} procs SEC(".maps");

/* Processes whose maps should be re-read: a pc fell outside every known mapping. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u32);
} rescan SEC(".maps");

/* To the thread of user space that names new stacks at once: the keys of stacks it has to
 * name (profile.bpf.c), and the PIDs of processes whose maps it must read again now. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} fresh SEC(".maps");

/* Asks user space to read pid's maps again for its code (a pc outside every mapping known),
 * waking it the first time rather than waiting for its next look. */
static __always_inline void lf_ask_code(__u32 pid)
{
	__u32 why = LF_RESCAN_CODE, *old = bpf_map_lookup_elem(&rescan, &pid);
	if (old && *old == LF_RESCAN_CODE)
		return;
	bpf_map_update_elem(&rescan, &pid, &why, BPF_ANY);
	bpf_ringbuf_output(&fresh, &pid, sizeof(pid), 0);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lf_ustate);
} ustate SEC(".maps");

/* The sample's record, built on this CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lf_stack);
} scratch SEC(".maps");

/* The sample's walk state and record, for the global functions (which take no pointers to
 * them: older kernels allow none). Returns 0, or -1 when either is missing. */
static __always_inline int lf_sample(struct lf_ustate **u, struct lf_stack **s)
{
	__u32 zero = 0;
	*u = bpf_map_lookup_elem(&ustate, &zero);
	*s = bpf_map_lookup_elem(&scratch, &zero);
	return *u && *s ? 0 : -1;
}

_Static_assert(LF_NDELTA > LF_MAX_NATIVE && !(LF_NDELTA & (LF_NDELTA - 1)), "ndelta holds every native word");
_Static_assert(!(LF_MAX_PROC_MAPS & (LF_MAX_PROC_MAPS - 1)) && !(LF_MAX_DATA & (LF_MAX_DATA - 1)) &&
		       !(LF_MAX_STACKS & (LF_MAX_STACKS - 1)),
	       "LF_SEARCH takes arrays of a power of two entries");

/* The searches are global functions so the verifier checks each once, not once per path
 * through the unwinder. */

/* Index of the mapping of pid holding ip, or -1. */
__noinline int lf_find_map(__u32 pid, __u64 ip)
{
	const struct lf_proc *p = bpf_map_lookup_elem(&procs, &pid);
	if (!p)
		return -1;
	return LF_FIND(p->m, LF_MAX_PROC_MAPS, p->n, start, end, ip);
}

/* Whether addr may point at pid's data: inside one of the ranges user space listed, or
 * anywhere when it listed none. A register or stack word holding a number, not a pointer,
 * fails here for the cost of a search instead of a faulting read (several microseconds). */
static __always_inline int may_point_in(const struct lf_proc *p, __u64 addr)
{
	return !p->ndata || LF_FIND(p->data, LF_MAX_DATA, p->ndata, lo, hi, addr) >= 0;
}

/* may_point_in for pid (a pid not listed may point anywhere). */
__noinline int lf_may_point(__u32 pid, __u64 addr)
{
	const struct lf_proc *p = bpf_map_lookup_elem(&procs, &pid);
	return !p || may_point_in(p, addr);
}

/* Aligned, in the user half above the first page. */
static __always_inline int may_be_object_at(__u64 v)
{
	return v >= 4096 && v < LF_USER_TOP && !(v & 7);
}

/* Whether v can be a pointer to an object of pid (a lua_State, say): aligned, in the user half
 * above the first page, and where pid keeps data (lf_may_point). Nothing is read. */
static __always_inline int lf_may_be_object(__u32 pid, __u64 v)
{
	return may_be_object_at(v) && lf_may_point(pid, v);
}

/* Asks user space to read pid's maps again for where it keeps data: a sample in its VM
 * found no state of it. A request for its code (LF_RESCAN_CODE) is not overwritten. The
 * first ask wakes user space (a VM in memory mapped after the last read loses every sample
 * until the next); one already waiting, which user space leaves in place until it is
 * due, does not. */
static __always_inline void lf_ask_data(__u32 pid)
{
	__u32 why = LF_RESCAN_DATA;
	if (!bpf_map_update_elem(&rescan, &pid, &why, BPF_NOEXIST))
		bpf_ringbuf_output(&fresh, &pid, sizeof(pid), 0);
}

/* Index of the last row with row.pc <= pc among the file's rows, or -1 (lf_halve: 25 rounds
 * cover 2^25 rows). */
__noinline int lf_find_row(__u32 file, __u32 pc)
{
	const struct lf_file *f = bpf_map_lookup_elem(&files, &file);
	if (!f || !f->row_count)
		return -1;
	__u32 base = f->row_start, len = f->row_count;
	for (int i = 0; i < 25 && len > 1; i++) {
		__u32 mid = base + len / 2;
		const struct lf_row *r = bpf_map_lookup_elem(&rows, &mid);
		if (!r)
			return -1;
		lf_halve(&base, &len, pc, r->pc);
	}
	const struct lf_row *r = bpf_map_lookup_elem(&rows, &base);
	return r && r->pc <= pc ? (int)base : -1;
}

static __always_inline int read_u64(__u64 addr, __u64 *v)
{
	return bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

/* The thread stack mapping that holds sp, from the process's list: its end, and in *lo its
 * start (0: not listed). */
static __always_inline __u64 stack_range(const struct lf_proc *p, __u64 sp, __u64 *lo_addr)
{
	int i = LF_FIND(p->stacks, LF_MAX_STACKS, p->nstacks, lo, hi, sp);
	const struct lf_range *r = &p->stacks[(__u32)i & (LF_MAX_STACKS - 1)];
	*lo_addr = i >= 0 ? r->lo : 0;
	return i >= 0 ? r->hi : 0;
}

/* Reads len bytes at base into the window. A global function, where the verifier sees len's
 * bound right at the read (inline, the compiler spilled it before the check, and 5.10's
 * verifier lost the bound on the copy read back). */
__noinline int lf_win_fill(__u64 base, __u32 len)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	__u64 n = len;
	if (!u || n > 8 * LF_WIN_WORDS)
		return -1;
	barrier_var(n);
	n &= 2 * 8 * LF_WIN_WORDS - 1; /* 5.10's verifier knows the bound only on the register checked */
	return bpf_probe_read_user(u->win, n, (const void *)base) ? -1 : 0;
}

/* Makes the window hold [base, end) of the sampled thread's stack, which must be mapped (a
 * frame's slots, from its sp up). User reads cost far more than the bytes they copy, and the
 * callers' frames lie right above: the window reads ahead up to LF_WIN_WORDS words within
 * the thread's stack mapping, where it is known, else just [base, end). A page read ahead
 * may not be in memory: the kernel leaves a random gap, never written, between a process's
 * first frames and its arguments, and a server's swap takes pages where little runs. Such a
 * read fails, and faults, each time: the window then holds the pages of [base, end) alone,
 * and no read ahead on that stack goes into the part that failed again (it is kept from
 * sample to sample with the stack's mapping). Returns 0, or -1 when the read failed
 * (window_read then reads on its own). */
static __always_inline int stack_window(struct lf_ustate *u, __u64 base, __u64 end)
{
	if (base - u->win_lo < u->win_len && end - u->win_lo <= u->win_len)
		return 0;
	__u64 top = base >= u->stack_lo && u->stack_hi > end ? u->stack_hi : end;
	if (top > u->sr_bad_lo && base < u->sr_bad_hi)
		top = end <= u->sr_bad_lo ? u->sr_bad_lo : end;
	__u64 len = top - base;
	if (len > 8 * LF_WIN_WORDS)
		len = 8 * LF_WIN_WORDS;
	u->win_lo = base;
	u->win_len = 0;
	if (lf_win_fill(base, (__u32)len)) {
		__u64 cap = ((end - 1) | (LF_PAGE_MIN - 1)) + 1;
		if (end <= base || base + len <= cap)
			return -1; /* the pages of [base, end) themselves */
		if (base >= u->sr_lo && base < u->sr_hi) {
			u->sr_bad_lo = cap;
			u->sr_bad_hi = base + len;
		}
		len = cap - base; /* shorter than the read that failed */
		if (lf_win_fill(base, (__u32)len))
			return -1;
	}
	u->win_len = (__u32)len;
	return 0;
}

/* Makes the window hold all of [base, end), a span of the sampled thread's stack, so that
 * win_at reads any 8 bytes in it without checks of its own (the memo's replay reads a few
 * slots of every frame it takes). Returns 0, or -1 when the span cannot be read or is longer
 * than the window. */
static __always_inline int stack_span(struct lf_ustate *u, __u64 base, __u64 end)
{
	return stack_window(u, base, end) || end - u->win_lo > u->win_len ? -1 : 0;
}

/* The 8 bytes at addr, inside the span stack_span last made the window hold (the mask only
 * shows the verifier the window's bounds: inside the span it changes nothing). */
static __always_inline __u64 win_at(const struct lf_ustate *u, __u64 addr)
{
	__u32 o = (__u32)(addr - u->win_lo) & (8 * LF_WIN_WORDS - 1);
	return lf_load_u64((const __u8 *)u->win + o);
}

/* Makes the window hold [end - 16, end) of an array that starts at floor and is used up to
 * end, such as a Lua stack walked from its top down: it reads down to floor, up to
 * LF_WIN_WORDS words. Returns 0, or -1 when the read failed. */
static __always_inline int array_window_down(struct lf_ustate *u, __u64 floor, __u64 end)
{
	if (end - 16 - u->win_lo < u->win_len && end - u->win_lo <= u->win_len)
		return 0;
	__u64 len = end - floor;
	if (end < floor + 16)
		return -1;
	if (len > 8 * LF_WIN_WORDS)
		len = 8 * LF_WIN_WORDS;
	u->win_lo = end - len;
	u->win_len = 0;
	if (bpf_probe_read_user(u->win, len, (const void *)(end - len)))
		return -1;
	u->win_len = (__u32)len;
	return 0;
}

/* The 8 bytes at addr into *v, from the window. Returns 0, or -1 when it does not hold them. */
static __always_inline int win_take(const struct lf_ustate *u, __u64 addr, __u64 *v)
{
	__u64 off = addr - u->win_lo;
	if (off < u->win_len && u->win_len - off >= 8 && off <= 8 * LF_WIN_WORDS - 8) {
		__u32 o = (__u32)off;
		barrier_var(o); /* keeps the bound, which the verifier needs, from being folded away */
		if (o <= 8 * LF_WIN_WORDS - 8) {
			*v = lf_load_u64((const __u8 *)u->win + o);
			return 0;
		}
	}
	return -1;
}

/* The 8 bytes at addr into *v, from the window when it holds them, else read on their own.
 * Returns 0, or -1 when they cannot be read. */
static __always_inline int win_get(struct lf_ustate *u, __u64 addr, __u64 *v)
{
	return win_take(u, addr, v) && read_u64(addr, v) ? -1 : 0;
}

/* win_get into the ustate's window_val. A global function: the verifier checks it once, not
 * at each of the many places that read a stack slot. */
__noinline int lf_window_read(__u64 addr)
{
	__u32 zero = 0;
	struct lf_ustate *u = bpf_map_lookup_elem(&ustate, &zero);
	if (!u)
		return -1;
	return win_get(u, addr, &u->window_val);
}

static __always_inline int window_read(struct lf_ustate *u, __u64 addr, __u64 *v)
{
	if (lf_window_read(addr))
		return -1;
	*v = u->window_val;
	return 0;
}

#endif
