/* Global names of Lua functions (global_names.h). A VM's package.loaded is walked a module at
 * a time, _G first, only as far as the function asked for; a function it does not hold sends
 * the walk round again, since modules gain functions as a program runs. What each function
 * object's prototype is, and the modules' names, are remembered per VM, so a walk again reads
 * little more than the tables' nodes. A name found is checked against the one field it comes
 * from: a VM closed and another made at its address holds other functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "global_names.h"
#include "safe_name.h"
#include "util.h"

#define GN_VMS 8             /* VMs remembered (a host may make a VM per request) */
#define GN_NAMES 4096        /* functions found per walk of a VM */
#define GN_MODULES 512       /* modules of package.loaded looked into */
#define GN_NODES (1u << 16)  /* nodes read of one table */
#define GN_WORK (1L << 18)   /* nodes read in one walk of a VM, all tables together */
#define GN_CHUNK 64          /* nodes per read */
#define GN_NODE_MAX 64       /* bytes of a node, at most (40 in every known layout) */
#define GN_KEY_MAX 64
#define GN_MEMO 8192         /* function objects whose prototype is remembered; power of two */

struct gn_item { uint64_t proto, fn, node, key; int mod; };
struct gn_module { uint64_t table, key; char name[GN_KEY_MAX]; };
struct gn_memo { uint64_t fn, proto; uint32_t era; };
struct gn_vm {
	uint64_t space, g, reg;
	int used, n, nmods, nold, next_mod;
	uint32_t era;            /* memo entries of another era are free: forgetting clears nothing */
	long work;               /* nodes the walk may still read */
	struct gn_item *items;
	struct gn_module *mods;  /* package.loaded's modules, _G first; next_mod: the next to read */
	struct gn_module *old;   /* the last walk's, whose names need no read again */
	struct gn_memo *memo;
};

struct walk {
	const struct gn_ops *ops;
	const void *ctx;
	struct gn_vm *vm;
	int mod;             /* the module whose functions are being added */
};

static struct gn_vm vms[GN_VMS];
static unsigned next_vm;

/* Called for each node of a table whose key is a string and whose value has the kind asked
 * for; nonzero stops the walk of that table. */
typedef int (*visit_fn)(struct walk *w, uint64_t node, uint64_t key, uint64_t val);

static int each_field(struct walk *w, uint64_t t, enum gn_kind want, visit_fn visit)
{
	const struct gn_ops *ops = w->ops;
	size_t ns = ops->node_size;
	uint8_t buf[GN_CHUNK * GN_NODE_MAX];
	uint64_t nodes;
	uint32_t count;
	if (ns == 0 || ns > GN_NODE_MAX || ops->hash_part(w->ctx, t, &nodes, &count))
		return -1;
	if (count > GN_NODES)
		count = GN_NODES;
	for (uint32_t i = 0; i < count && w->vm->work > 0; i += GN_CHUNK) {
		uint32_t n = count - i < GN_CHUNK ? count - i : GN_CHUNK;
		w->vm->work -= n;
		if (ops->read(w->ctx, nodes + (uint64_t)i * ns, buf, n * ns))
			return -1;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t key = 0, val = 0;
			enum gn_kind kind = GN_OTHER;
			ops->node(w->ctx, buf + j * ns, &key, &kind, &val);
			if (key && val && kind == want && visit(w, nodes + (uint64_t)(i + j) * ns, key, val))
				return 0;
		}
	}
	return 0;
}

/* The text of key string s: 0, or -1 when unreadable, or too long or holding a NUL (a name
 * cut short would name another field). */
static int key_text(const struct walk *w, uint64_t s, char *out, size_t size)
{
	uint64_t full = 0;
	long n = w->ops->string(w->ctx, s, out, size, &full);
	return n < 0 || full >= size || (uint64_t)n != full ? -1 : 0;
}

static int found_loaded(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	char s[GN_KEY_MAX];
	(void)node;
	if (key_text(w, key, s, sizeof s) || strcmp(s, "_LOADED"))
		return 0;
	w->vm->mods[0].table = val;  /* slot 0 holds package.loaded until the modules replace it */
	return 1;
}

/* The module's name: the last walk's when the same string names the same table. */
static int module_name(struct walk *w, struct gn_module *m)
{
	const struct gn_vm *vm = w->vm;
	for (int i = 0; i < vm->nold; i++)
		if (vm->old[i].key == m->key && vm->old[i].table == m->table) {
			memcpy(m->name, vm->old[i].name, sizeof m->name);
			return 0;
		}
	return key_text(w, m->key, m->name, sizeof m->name);
}

/* _G first: a function both global and a module's is named as a global. */
static int add_module(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	(void)node;
	struct gn_vm *vm = w->vm;
	struct gn_module m = { val, key, "" };
	if (vm->nmods >= GN_MODULES || module_name(w, &m))
		return vm->nmods >= GN_MODULES;
	if (strcmp(m.name, "_G") == 0 && vm->nmods > 0) {
		vm->mods[vm->nmods++] = vm->mods[0];
		vm->mods[0] = m;
	} else {
		vm->mods[vm->nmods++] = m;
	}
	return 0;
}

/* The prototype of function object fn (0: not a Lua function), read once per VM. */
static uint64_t proto_of(struct walk *w, uint64_t fn)
{
	struct gn_memo *memo = w->vm->memo;
	size_t h = (size_t)((fn >> 4) * 0x9e3779b97f4a7c15ULL >> 51);
	for (int i = 0; i < 8; i++) {
		struct gn_memo *e = &memo[(h + (size_t)i) & (GN_MEMO - 1)];
		if (e->era == w->vm->era && e->fn == fn)
			return e->proto;
		if (e->era != w->vm->era) {
			*e = (struct gn_memo){ fn, w->ops->proto_of(w->ctx, fn), w->vm->era };
			return e->proto;
		}
	}
	return w->ops->proto_of(w->ctx, fn);
}

static int add_function(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	struct gn_vm *vm = w->vm;
	if (vm->n >= GN_NAMES)
		return 1;
	uint64_t proto = proto_of(w, val);
	if (proto)
		vm->items[vm->n++] = (struct gn_item){ proto, val, node, key, w->mod };
	return 0;
}

/* Starts a walk of the VM whose registry is reg: its modules, none read yet. 0, or -1 when
 * the registry or package.loaded could not be read. */
static int begin_walk(struct walk *w, uint64_t reg)
{
	struct gn_vm *vm = w->vm;
	struct gn_module *t = vm->old;
	vm->old = vm->mods;
	vm->mods = t;
	vm->nold = vm->nmods;
	vm->reg = reg;
	vm->n = vm->nmods = vm->next_mod = 0;
	vm->work = GN_WORK;
	vm->mods[0].table = 0;
	if (each_field(w, reg, GN_TABLE, found_loaded) || !vm->mods[0].table)
		return -1;
	uint64_t loaded = vm->mods[0].table;
	vm->mods[0].table = 0;
	return each_field(w, loaded, GN_TABLE, add_module);
}

static int walk_ended(const struct gn_vm *vm)
{
	return vm->next_mod >= vm->nmods || vm->work <= 0 || vm->n >= GN_NAMES;
}

/* Reads the next module's functions (an unreadable module is skipped); 0 when none is left. */
static int walk_next(struct walk *w)
{
	struct gn_vm *vm = w->vm;
	if (walk_ended(vm))
		return 0;
	w->mod = vm->next_mod++;
	each_field(w, vm->mods[w->mod].table, GN_FUNC, add_function);
	return 1;
}

/* Whether the field it was found in still holds its function, and that function proto. */
static int still_holds(const struct walk *w, const struct gn_item *it)
{
	uint8_t raw[GN_NODE_MAX];
	uint64_t key = 0, val = 0;
	enum gn_kind kind = GN_OTHER;
	if (w->ops->node_size > sizeof raw || w->ops->read(w->ctx, it->node, raw, w->ops->node_size))
		return 0;
	w->ops->node(w->ctx, raw, &key, &kind, &val);
	return kind == GN_FUNC && val == it->fn && key == it->key && w->ops->proto_of(w->ctx, val) == it->proto;
}

/* 0 with the name of the first function of the walk so far with prototype proto, or -1. */
static int lookup(const struct walk *w, uint64_t proto, char *out, size_t size)
{
	const struct gn_vm *vm = w->vm;
	char field[GN_KEY_MAX];
	for (int i = 0; i < vm->n; i++) {
		const struct gn_item *it = &vm->items[i];
		if (it->proto != proto || !still_holds(w, it) ||
		    key_text(w, it->key, field, sizeof field))
			continue;
		const char *mod = vm->mods[it->mod].name;
		if (it->mod == 0 && strcmp(mod, "_G") == 0)
			snprintf(out, size, "%s", field);
		else
			snprintf(out, size, "%s.%s", mod, field);
		safe_name_fix(out, size, SAFE_LUA_NAME);
		return 0;
	}
	return -1;
}

/* Nothing of what was read of the VM holds any more (none read yet: reg 0). */
static void forget(struct gn_vm *vm)
{
	vm->reg = 0;
	vm->n = vm->nmods = vm->nold = vm->next_mod = 0;
	if (++vm->era == 0) { /* after 2^32 VMs: no entry may look current */
		memset(vm->memo, 0, GN_MEMO * sizeof(*vm->memo));
		vm->era = 1;
	}
}

static struct gn_vm *vm_of(uint64_t space, uint64_t g)
{
	for (int i = 0; i < GN_VMS; i++)
		if (vms[i].used && vms[i].space == space && vms[i].g == g)
			return &vms[i];
	struct gn_vm *vm = &vms[next_vm++ % GN_VMS];
	if (!vm->items) {
		vm->items = xcalloc(GN_NAMES, sizeof(*vm->items));
		vm->mods = xcalloc(GN_MODULES, sizeof(*vm->mods));
		vm->old = xcalloc(GN_MODULES, sizeof(*vm->old));
		vm->memo = xcalloc(GN_MEMO, sizeof(*vm->memo));
	}
	vm->space = space;
	vm->g = g;
	vm->used = 1;
	forget(vm);
	return vm;
}

int global_name(const struct gn_ops *ops, const void *ctx, uint64_t space, uint64_t L, uint64_t proto,
		char *out, size_t size)
{
	uint64_t g = 0, reg = 0;
	if (!out || size == 0 || !L || !proto)
		return -1;
	out[0] = '\0';
	if (ops->registry(ctx, L, &g, &reg))
		return -2;
	struct walk w = { ops, ctx, vm_of(space, g), 0 };
	if (lookup(&w, proto, out, size) == 0)
		return 0;
	/* another VM where this one was (a state per request): nothing of the old one holds */
	if (w.vm->reg && (w.vm->reg != reg || (w.vm->n > 0 && !still_holds(&w, &w.vm->items[0]))))
		forget(w.vm);
	/* the rest of a walk begun earlier, then (its modules may be out of date) a new one */
	int began = w.vm->reg != reg || walk_ended(w.vm);
	for (int round = 0; round < 2; round++) {
		if (began && begin_walk(&w, reg))
			return -2;
		while (walk_next(&w))
			if (lookup(&w, proto, out, size) == 0)
				return 0;
		if (began)
			break;
		began = 1;
	}
	return -1;
}

void global_names_clear(void)
{
	for (int i = 0; i < GN_VMS; i++) {
		free(vms[i].items);
		free(vms[i].mods);
		free(vms[i].old);
		free(vms[i].memo);
		vms[i] = (struct gn_vm){ 0 };
	}
	next_vm = 0;
}
