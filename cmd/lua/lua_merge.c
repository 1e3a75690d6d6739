/* Merges a sample's native frames with the Lua frames of the lua_States that were
 * running, in true call order: host C frames, then Lua frames, then the C functions they
 * call and so on, with the VM's internal frames between them left out.
 *
 * Each run of Lua frames executed by one interpreter activation (luaV_execute) is
 * anchored at the native frame where the BPF program saw that activation's lua_State
 * in a register. Native frames between the host's API call (lua_pcall, lua_resume...)
 * and the anchor are VM internals and are replaced by the activation's Lua frames; a C
 * function the activation calls is matched to its native frame, below which native
 * frames continue. */
#include <string.h>

#include "lua_merge.h"

static int tag_of(__u64 w) { return (int)lf_word_tag(w); }
static __u64 low(__u64 w) { return lf_word_value(w); }

/* A Lua frame from its function word (tag t) and pc word. A LuaJIT C function comes with its
 * ffid, taken out of the pc word so that its bits are not read as a fingerprint's. */
static struct lm_lua lua_frame(int t, __u64 fw, __u64 pw)
{
	if (t == LF_TAG_LJCFUNC)
		return (struct lm_lua){ .c = 1, .lj = 1, .ffid = (int)((pw & LF_LJ_FFID_BITS) >> LF_LJ_FFID_SHIFT),
					.ptr = low(fw), .aux = pw & ~LF_LJ_FFID_BITS };
	return (struct lm_lua){ .c = t == LF_TAG_LCFUNC, .lj = t == LF_TAG_LJFUNC,
				.marker = t != LF_TAG_LCFUNC && !low(fw), .ptr = low(fw), .aux = pw };
}

void lm_decode(const __u64 *w, int n, struct lm_stack *s)
{
	memset(s, 0, sizeof(*s));
	int i = 0;
	for (; i < n; i++) {
		int t = tag_of(w[i]);
		if (t == LF_TAG_MARK) {
			s->mark = (uint32_t)w[i];
			i++;
			break;
		}
		if (t != LF_TAG_NATIVE && t != LF_TAG_EXACT && t != LF_TAG_FP && t != LF_TAG_LJTRACE &&
		    t != LF_TAG_ELIDED)
			break;
		if (s->nnat < LF_MAX_NATIVE)
			s->nat[s->nnat++] = (struct lm_native){ lf_native_value(w[i]), t, lf_native_entry(w[i]), 0 };
	}
	struct lm_thread *th = NULL;
	for (; i < n; i++) {
		int t = tag_of(w[i]);
		if (t == LF_TAG_LTHREAD) {
			th = s->nth < LF_MAX_LTHREADS ? &s->th[s->nth++] : NULL;
			if (th)
				th->L = low(w[i]);
		} else if (lf_is_lua_func_tag(t) && i + 1 < n) {
			if (th && th->n < LF_MAX_LUA + 1)
				th->f[th->n++] = lua_frame(t, w[i], w[i + 1]);
			i++;
		} else if (t == LF_TAG_LJSTATE && th) {
			th->lj = 1;
			th->vmstate = (int32_t)(uint32_t)w[i];
		} else if (t == LF_TAG_LPOS && s->npos < LF_MAX_LPOS) {
			int thr = (int)lf_lpos_thread(w[i]), fr = (int)lf_lpos_frame(w[i]);
			if (thr < s->nth && fr < s->nnat)
				s->pos[s->npos++] = (struct lm_pos){ thr, fr };
		}
	}
}

/* One activation: frames outer..inner of a thread (indices into f[], innermost first, so
 * outer >= inner), entered through the host API call at native frame nat (-1: none). */
struct act { int thread, outer, inner, nat; };

/* Splits thread t's frames (outermost first) into activations: one starts at each
 * function entered from C (the outermost frame, or a frame whose caller is a C
 * function). A C function called from Lua ends its caller's activation. Where the VM
 * marks its entries from C (LuaJIT), only those frames start one: pcall, xpcall and the
 * other fast functions call Lua inside the interpreter, without a native frame of their own. */
static int activations(const struct lm_thread *th, int t, const struct lm_rules *r, struct act *a, int max)
{
	int n = 0;
	for (int j = th->n - 1; j >= 0; j--) {
		int from_c = j == th->n - 1 || (!r->marked_entries && th->f[j + 1].c) ||
			     (th->f[j].aux & LF_LFLAG_CENTRY);
		if (from_c && n < max)
			a[n++] = (struct act){ t, j, j, -1 };
		else if (n)
			a[n - 1].inner = j;
	}
	return n;
}

/* Threads outermost first: a coroutine runs below the thread that resumed it, so its
 * lua_State was seen at frames nearer the leaf. */
static int thread_order(const struct lm_stack *s, int *order)
{
	int outer[LF_MAX_LTHREADS];
	for (int t = 0; t < s->nth; t++) {
		order[t] = t;
		outer[t] = -1 - t;   /* without positions: threads come innermost first */
		for (int k = 0; k < s->npos; k++)
			if (s->pos[k].thread == t && s->pos[k].frame > outer[t])
				outer[t] = s->pos[k].frame;
	}
	for (int i = 1; i < s->nth; i++)
		for (int j = i; j > 0 && outer[order[j]] > outer[order[j - 1]]; j--) {
			int x = order[j];
			order[j] = order[j - 1];
			order[j - 1] = x;
		}
	return s->nth;
}

struct emit { struct lm_out *out; int n, max; };

static void put(struct emit *e, int kind, int a, int b)
{
	if (e->n < e->max)
		e->out[e->n++] = (struct lm_out){ kind, a, b };
}

/* Innermost native frame at or above `from` (leaf index) where thread t's lua_State was
 * seen: frames from there to the leaf belong to the running function. */
static int innermost_seen(const struct lm_stack *s, int t, int from)
{
	int best = -1;
	for (int k = 0; k < s->npos; k++)
		if (s->pos[k].thread == t && s->pos[k].frame < from && (best < 0 || s->pos[k].frame < best))
			best = s->pos[k].frame;
	return best;
}

/* Next host-to-VM entry at or below native frame c (leaf index), or -1: a frame the BPF
 * side marked, for either family (PUC Lua: its API functions; LuaJIT: its C frames' callers). */
static int next_entry(const struct lm_stack *s, int c)
{
	for (int i = c; i >= 1; i--)
		if (s->nat[i].entry)
			return i;
	return -1;
}

/* An interpreter that is one function (LuaJIT's, in assembly) is entered right after the
 * host's call; frames inside it stand for Lua code already shown, frames beyond it
 * (helpers, the GC, traces) stay. */
static int skip_vm(const struct lm_stack *s, int c)
{
	uint64_t vm = c >= 0 ? s->nat[c].func : 0;
	while (vm && c >= 0 && s->nat[c].tag != LF_TAG_LJTRACE && s->nat[c].func == vm)
		c--;
	return c;
}

/* Starts of the functions whose frames the merge left out so far as the VM's own: the
 * frames between an activation's entry and its Lua code, or its C function. */
#define VM_FUNCS 32
struct vm_funcs { uint64_t start[VM_FUNCS]; int n; };

static int is_vm_func(const struct vm_funcs *v, uint64_t start)
{
	for (int i = 0; i < v->n; i++)
		if (v->start[i] == start)
			return 1;
	return 0;
}

/* Native frames lo..hi (leaf indices) were left out as the VM's. */
static void note_vm_frames(struct vm_funcs *v, const struct lm_stack *s, int lo, int hi)
{
	for (int i = lo; i <= hi && v->n < VM_FUNCS; i++) {
		uint64_t f = s->nat[i].func;
		if (f && !is_vm_func(v, f))
			v->start[v->n++] = f;
	}
}

/* PUC Lua in a host without the VM's API symbols (a stripped static build): the first
 * activation entered the VM at the outermost frame that held its lua_State (the BPF side
 * records both ends of each run of frames holding one). A later one was entered by the C
 * function before it calling the API, whose frame is the caller of the first frame below
 * that C function in a function of the VM that earlier activations ran through (lua_callk
 * calls luaD_callnoyield, as lua_pcallk's path did): the C function's own frames down to
 * that call stay, as with a host whose API has symbols. Returns the entry's frame, c + 1
 * for "no native frame", or -1. */
static int entry_without_symbols(const struct lm_stack *s, int thread, int k, int c, const struct vm_funcs *vm)
{
	if (k > 0) {
		for (int i = c; i >= 0 && vm->n; i--)
			if (is_vm_func(vm, s->nat[i].func))
				return i + 1;
		return c + 1;
	}
	int best = -1;
	for (int i = 0; i < s->npos; i++)
		if (s->pos[i].thread == thread && s->pos[i].frame <= c && s->pos[i].frame > best)
			best = s->pos[i].frame;
	return best;
}

static int innermost_entry(const struct lm_stack *s, int c)
{
	for (int i = 1; i <= c; i++)
		if (s->nat[i].entry)
			return i;
	return -1;
}

int lm_merge(const struct lm_stack *s, const struct lm_rules *rules, struct lm_out *out, int max)
{
	static const struct lm_rules puc_way;
	const struct lm_rules *r = rules ? rules : &puc_way;
	struct act acts[LF_MAX_LTHREADS * LF_MAX_LPOS];
	int order[LF_MAX_LTHREADS], na = 0;
	thread_order(s, order);
	for (int i = 0; i < s->nth; i++)
		na += activations(&s->th[order[i]], order[i], r, acts + na, LF_MAX_LPOS);
	struct emit e = { out, 0, max };
	struct vm_funcs vm = { .n = 0 };
	int c = s->nnat - 1;              /* next native frame to emit, counting from the leaf */
	/* Outermost first: each activation was entered through the next API call below the
	 * previous one's C function; API calls left over nearer the leaf are ordinary frames. */
	for (int k = 0; k < na; k++) {
		const struct act *a = &acts[k];
		const struct lm_thread *th = &s->th[a->thread];
		int b = next_entry(s, c);
		const struct lm_lua *first = &th->f[a->outer];
		if (k == na - 1 && first->marker && !first->aux)
			b = innermost_entry(s, c); /* truncated: the outer part is lost */
		else if (b < 0 && !r->marked_entries)
			b = entry_without_symbols(s, a->thread, k, c, &vm);
		/* Without an entry (a coroutine the VM resumed itself) the Lua frames come
		 * first and the native frames below wait for the end. */
		for (; b >= 0 && c >= b; c--)
			put(&e, LM_NATIVE, c, 0);
		for (int j = a->outer; j >= a->inner; j--)
			put(&e, LM_LUA, a->thread, j);
		if (b < 0)
			continue;
		const struct lm_lua *last = &th->f[a->inner];
		c = b - 1;
		if (last->c) {
			/* The Lua label stands for the C function's own frame; its callees follow. */
			int found = 0;
			for (int i = b - 1; i >= 0 && last->ptr && !found; i--)
				if (s->nat[i].func == last->ptr) {
					c = i - 1;
					found = 1;
				}
			if (!found && r->one_function_vm)
				c = skip_vm(s, c);   /* a built-in runs inside the interpreter */
			else if (found && !r->marked_entries)
				note_vm_frames(&vm, s, c + 2, b - 1);
		} else if (k == na - 1 && r->one_function_vm) {
			c = skip_vm(s, c);
		} else if (k == na - 1) {
			/* The interpreter's frames down to where it runs this thread are hidden. */
			int seen = innermost_seen(s, a->thread, b);
			c = seen >= 0 ? seen - 1 : -1;
		}
	}
	for (; c >= 0; c--)
		put(&e, LM_NATIVE, c, 0);
	return e.n;
}
