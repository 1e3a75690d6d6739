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

static int tag_of(__u64 w) { return (int)(w >> LF_TAG_SHIFT); }
static __u64 low(__u64 w) { return w & ((1ULL << LF_TAG_SHIFT) - 1); }

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
		if (t != LF_TAG_NATIVE && t != LF_TAG_EXACT && t != LF_TAG_FP)
			break;
		if (s->nnat < LF_MAX_NATIVE)
			s->nat[s->nnat++] = (struct lm_native){ low(w[i]), t };
	}
	struct lm_thread *th = NULL;
	for (; i < n; i++) {
		int t = tag_of(w[i]);
		if (t == LF_TAG_LTHREAD) {
			th = s->nth < LF_MAX_LTHREADS ? &s->th[s->nth++] : NULL;
			if (th)
				th->L = low(w[i]);
		} else if ((t == LF_TAG_LFUNC || t == LF_TAG_LCFUNC) && i + 1 < n) {
			if (th && th->n < LF_MAX_LUA)
				th->f[th->n++] = (struct lm_lua){ t == LF_TAG_LCFUNC, low(w[i]), w[i + 1] };
			i++;
		} else if (t == LF_TAG_LPOS && s->npos < LF_MAX_LPOS) {
			int thr = (int)((w[i] >> 16) & 0xff), fr = (int)(w[i] & 0xffff);
			if (thr < s->nth && fr < s->nnat)
				s->pos[s->npos++] = (struct lm_pos){ thr, fr };
		}
	}
}

/* One activation: frames outer..inner of a thread (indices into f[], innermost first, so
 * outer >= inner) anchored at native frame nat (-1: none). A Lua activation is a run of
 * the interpreter, anchored where its lua_State was seen; a C activation is a C function
 * entered from C (a host's lua_pcall of a C function), anchored at its own frame. */
struct act { int thread, outer, inner, nat, cfunc; };

struct merge_in {
	const struct lm_stack *s;
	int (*same_function)(void *ctx, uint64_t frame_addr, uint64_t func);
	void *ctx;
};

/* Splits thread t's frames (outermost first) into activations: one starts at each Lua
 * function entered from C (or from nothing) or marked as starting a fresh VM run, and at
 * each C function entered from C. A C function called from Lua ends its caller's run. */
static int activations(const struct lm_thread *th, int t, struct act *a, int max)
{
	int n = 0;
	for (int j = th->n - 1; j >= 0; j--) {
		const struct lm_lua *f = &th->f[j];
		int outer_c = j == th->n - 1 || th->f[j + 1].c;
		int starts = outer_c || (!f->c && (f->aux & LF_LFLAG_FRESH));
		if (starts && n < max)
			a[n++] = (struct act){ t, j, j, -1, f->c && outer_c };
		else if (n)
			a[n - 1].inner = j;
	}
	return n;
}

/* Native frame of C function func, searching outward from below; -1 if none. */
static int find_function(const struct merge_in *in, uint64_t func)
{
	for (int i = in->s->nnat - 1; i >= 1; i--)
		if (in->same_function(in->ctx, in->s->nat[i].addr, func))
			return i;
	return -1;
}

/* Pairs a thread's Lua activations with the native frames its lua_State was seen in, from
 * the innermost outward, and C activations with their function's frame. Activations left
 * without an anchor join a neighbour. Returns the number kept. */
static int anchor(const struct merge_in *in, int t, struct act *a, int n)
{
	const struct lm_stack *s = in->s;
	int nat[LF_MAX_LPOS], m = 0;
	for (int k = 0; k < s->npos; k++)
		if (s->pos[k].thread == t && m < LF_MAX_LPOS)
			nat[m++] = s->pos[k].frame;   /* innermost first */
	for (int k = n - 1, p = 0; k >= 0; k--) {
		if (a[k].cfunc)
			a[k].nat = find_function(in, s->th[t].f[a[k].outer].ptr);
		else if (p < m)
			a[k].nat = nat[p++];
	}
	int kept = 0;
	for (int k = 0; k < n; k++) {
		if (a[k].nat >= 0) {
			a[kept++] = a[k];
			continue;
		}
		if (k + 1 < n)
			a[k + 1].outer = a[k].outer;  /* frames join the next inner activation */
		else if (kept)
			a[kept - 1].inner = a[k].inner;
	}
	return kept;
}

static void sort_outer_first(struct act *a, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && a[j].nat > a[j - 1].nat; j--) {
			struct act x = a[j];
			a[j] = a[j - 1];
			a[j - 1] = x;
		}
}

struct emit { struct lm_out *out; int n, max; };

static void put(struct emit *e, int kind, int a, int b)
{
	if (e->n < e->max)
		e->out[e->n++] = (struct lm_out){ kind, a, b };
}

int lm_merge(const struct lm_stack *s, struct lm_out *out, int max,
	     int (*same_function)(void *ctx, uint64_t frame_addr, uint64_t func), void *ctx,
	     int (*is_api_entry)(void *ctx, uint64_t frame_addr))
{
	struct act acts[LF_MAX_LTHREADS * LF_MAX_LPOS];
	struct merge_in in = { s, same_function, ctx };
	int na = 0;
	for (int t = 0; t < s->nth; t++) {
		struct act a[LF_MAX_LPOS];
		int n = activations(&s->th[t], t, a, LF_MAX_LPOS);
		n = anchor(&in, t, a, n);
		for (int k = 0; k < n; k++)
			acts[na++] = a[k];
	}
	sort_outer_first(acts, na);
	struct emit e = { out, 0, max };
	int c = s->nnat - 1;              /* next native frame to emit, counting from the leaf */
	for (int k = 0; k < na; k++) {
		const struct act *a = &acts[k];
		if (a->nat > c)
			continue;                 /* anchors must move toward the leaf */
		int cut = a->nat;             /* without an API entry only the anchor is hidden */
		for (int i = a->nat + 1; i <= c; i++)
			if (is_api_entry(ctx, s->nat[i].addr)) {
				cut = i - 1;
				break;
			}
		for (; c > cut; c--)
			put(&e, LM_NATIVE, c, 0);
		const struct lm_thread *th = &s->th[a->thread];
		for (int j = a->outer; j >= a->inner; j--)
			put(&e, LM_LUA, a->thread, j);
		c = a->nat - 1;
		const struct lm_lua *last = &th->f[a->inner];
		if (!last->c || a->cfunc)
			continue;
		int stop = k + 1 < na ? acts[k + 1].nat : -1;
		for (int i = a->nat - 1; i > stop; i--)
			if (same_function(ctx, s->nat[i].addr, last->ptr)) {
				c = i - 1;            /* the Lua label stands for the function's own frame */
				break;
			}
	}
	for (; c >= 0; c--)
		put(&e, LM_NATIVE, c, 0);
	return e.n;
}
