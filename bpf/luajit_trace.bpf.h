/* LuaJIT trace code in the native unwinder: traces run on the interpreter's C frame and
 * have no unwind tables, so unwinding continues from that frame (L->cframe). Included by
 * runtime.bpf.h. */
#ifndef LF_LUAJIT_TRACE_BPF_H
#define LF_LUAJIT_TRACE_BPF_H
#include "config.bpf.h"
#include "lua.h"
#include "lua_walk.bpf.h"

/* A GCRef/MRef of the target: 8 bytes with GC64, 4 without. */
static __always_inline __u64 lj_ref(const struct lf_lj_cfg *c, __u64 addr)
{
	__u64 v = 0;
	if (c->gc64)
		read_u64(addr, &v);
	else
		bpf_probe_read_user(&v, 4, (const void *)addr);
	return v;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct lf_lj_cfg);
} lj_cfgs SEC(".maps");

/* The running lua_State's C frame (the VM's rsp while it interprets), or 0. */
static __always_inline __u64 lj_cframe(const struct lf_lj_cfg *c)
{
	__u64 L = lj_ref(c, c->g + c->g_cur_L), cf = 0;
	if (!L || read_u64(L + c->L_cframe, &cf))
		return 0;
	return cf & c->cframe_rawmask;
}

/* A frame of the VM's own code whose CFA is a C frame of the VM: the lua_State saved
 * there ran at this point of the native stack. Coroutines run on the C stack of the thread
 * that resumed them, so this is how the resumer's frames are found. */
static __always_inline void lj_note_cframe(struct lf_ustate *u, const struct lf_lj_cfg *c)
{
	__u64 cf = u->sp - c->cframe_size, L, own = 0;
	if (u->nthreads >= LF_MAX_LTHREADS || u->nlpos >= LF_MAX_LPOS)
		return;
	L = lj_ref(c, cf + c->cframe_ofs_l);
	if (!L || L == u->last_cand || lj_ref(c, L + c->L_glref) != c->g)
		return;
	/* Only the VM's own C frame of that thread counts, not a stray copy of L. */
	if (read_u64(L + c->L_cframe, &own) || (own & c->cframe_rawmask) != cf)
		return;
	u->last_cand = L;
	lf_note_position(u, L);
}

/* Moves from inside the VM (or a trace running on its frame) to the VM's caller, restoring
 * what the VM saved in its C frame. Returns 0 or a mark. */
static __always_inline int step_lj_cframe(struct lf_ustate *u, const struct lf_lj_cfg *c)
{
	__u64 cf = lj_cframe(c), ra = 0;
	if (!cf || cf + 16 < u->sp)
		return LF_MARK_FP_FAILED;
	__u64 cfa = cf + c->cframe_size;
	if (read_u64(cfa - 8, &ra))
		return LF_MARK_BAD_READ;
	read_u64(cfa + c->saved_rbp, &u->bp);
	read_u64(cfa + c->saved_rbx, &u->regs[0]);
	read_u64(cfa + c->saved_r14, &u->regs[3]);
	read_u64(cfa + c->saved_r15, &u->regs[4]);
	u->sp = cfa;
	u->ip = ra;
	u->exact = 0;
	lj_note_cframe(u, c);
	return 0;
}

/* Whether the sample's leaf runs on the VM's C frame (in the interpreter or a helper it
 * called): rsp is the cframe, or one return address below it. */
static __always_inline int lj_leaf_in_vm(const struct lf_ustate *u, const struct lf_lj_cfg *c)
{
	__s32 vmstate = 0;
	bpf_probe_read_user(&vmstate, 4, (const void *)(c->g + c->g_vmstate));
	if (vmstate != ~(__s32)c->vmst_interp)
		return 0;
	__u64 cf = lj_cframe(c);
	return cf && (u->sp == cf || u->sp + 8 == cf);
}

/* A trace: the frame becomes a [trace N] marker, then unwinding continues from the VM's
 * C frame. */
static __always_inline int step_lj_trace(struct lf_ustate *u, struct lf_stack *s, const struct lf_lj_cfg *c)
{
	__s32 vmstate = 0;
	bpf_probe_read_user(&vmstate, 4, (const void *)(c->g + c->g_vmstate));
	__u32 traceno = vmstate >= 0 ? (__u32)vmstate : LF_TRACE_UNKNOWN;
	s->user[u->cur & (LF_MAX_USTACK - 1)] = lf_word(LF_TAG_LJTRACE, traceno);
	return step_lj_cframe(u, c);
}

#endif
