/* Global names of Lua functions (global_names.h). A VM's package.loaded is walked a module at
 * a time, _G first, and only as far as the function asked for, so naming a global costs one
 * walk of _G; what was found is kept for the VM's other functions. A lookup checks the one
 * field it answers from: a VM closed and another made at its address holds other functions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "global_names.h"
#include "safe_name.h"
#include "util.h"

#define GN_VMS 8             /* VMs remembered (a host may make a VM per request) */
#define GN_NAMES 4096        /* functions named per VM */
#define GN_MODULES 512       /* modules of package.loaded looked into */
#define GN_NODES (1u << 16)  /* nodes read of one table */
#define GN_WORK (1L << 18)   /* nodes read in one walk of a VM, all tables together */
#define GN_CHUNK 64          /* nodes per read */
#define GN_NODE_MAX 64       /* bytes of a node, at most (40 in every known layout) */
#define GN_KEY_MAX 64
#define GN_STALE 1.0         /* seconds: a miss walks a VM again when its walk is older */

struct gn_item { uint64_t proto, fn, node; char name[2 * GN_KEY_MAX]; };
struct gn_module { uint64_t table; char name[GN_KEY_MAX]; };
struct gn_vm {
	uint64_t space, g, reg;
	double built;            /* when the walk began */
	int used, n, nmods, next_mod;
	long work;               /* nodes the walk may still read */
	struct gn_item *items;
	struct gn_module *mods;  /* package.loaded's modules, _G first; next_mod: the next to read */
};

struct walk {
	const struct gn_ops *ops;
	const void *ctx;
	struct gn_vm *vm;
	const char *mod;     /* the module whose functions are being added */
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

static int key_is(struct walk *w, uint64_t key, const char *want)
{
	char s[GN_KEY_MAX];
	return w->ops->string(w->ctx, key, s, sizeof s) >= 0 && strcmp(s, want) == 0;
}

static int found_loaded(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	(void)node;
	if (!key_is(w, key, "_LOADED"))
		return 0;
	w->vm->mods[0].table = val;  /* slot 0 holds package.loaded until the modules replace it */
	return 1;
}

/* _G first: a function both global and a module's is named as a global. */
static int add_module(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	(void)node;
	struct gn_vm *vm = w->vm;
	struct gn_module m = { val, "" };
	if (vm->nmods >= GN_MODULES || w->ops->string(w->ctx, key, m.name, sizeof m.name) < 0)
		return vm->nmods >= GN_MODULES;
	if (strcmp(m.name, "_G") == 0 && vm->nmods > 0) {
		vm->mods[vm->nmods++] = vm->mods[0];
		vm->mods[0] = m;
	} else {
		vm->mods[vm->nmods++] = m;
	}
	return 0;
}

static int known(const struct gn_vm *vm, uint64_t proto)
{
	for (int i = 0; i < vm->n; i++)
		if (vm->items[i].proto == proto)
			return 1;
	return 0;
}

static int add_function(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	struct gn_vm *vm = w->vm;
	char field[GN_KEY_MAX];
	if (vm->n >= GN_NAMES)
		return 1;
	uint64_t proto = w->ops->proto_of(w->ctx, val);
	if (!proto || known(vm, proto) || w->ops->string(w->ctx, key, field, sizeof field) < 0)
		return 0;
	struct gn_item *it = &vm->items[vm->n++];
	*it = (struct gn_item){ proto, val, node, "" };
	if (strcmp(w->mod, "_G") == 0)
		snprintf(it->name, sizeof it->name, "%s", field);
	else
		snprintf(it->name, sizeof it->name, "%s.%s", w->mod, field);
	return 0;
}

/* Starts a walk of the VM whose registry is reg: its modules, none read yet. 0, or -1 when
 * the registry or package.loaded could not be read. */
static int begin_walk(struct walk *w, uint64_t reg)
{
	struct gn_vm *vm = w->vm;
	vm->reg = reg;
	vm->n = vm->nmods = vm->next_mod = 0;
	vm->work = GN_WORK;
	vm->built = now_sec();
	vm->mods[0].table = 0;
	if (each_field(w, reg, GN_TABLE, found_loaded) || !vm->mods[0].table)
		return -1;
	uint64_t loaded = vm->mods[0].table;
	vm->mods[0].table = 0;
	return each_field(w, loaded, GN_TABLE, add_module);
}

/* Reads the next module's functions (an unreadable module is skipped); 0 when none is left. */
static int walk_next(struct walk *w)
{
	struct gn_vm *vm = w->vm;
	if (vm->next_mod >= vm->nmods || vm->work <= 0 || vm->n >= GN_NAMES)
		return 0;
	const struct gn_module *m = &vm->mods[vm->next_mod++];
	w->mod = m->name;
	each_field(w, m->table, GN_FUNC, add_function);
	return 1;
}

/* Whether the field item answers from still holds its function, and that function proto. */
static int still_holds(const struct gn_ops *ops, const void *ctx, const struct gn_item *it)
{
	uint8_t raw[GN_NODE_MAX];
	uint64_t key = 0, val = 0;
	enum gn_kind kind = GN_OTHER;
	if (ops->node_size > sizeof raw || ops->read(ctx, it->node, raw, ops->node_size))
		return 0;
	ops->node(ctx, raw, &key, &kind, &val);
	return kind == GN_FUNC && val == it->fn && ops->proto_of(ctx, val) == it->proto;
}

static int lookup(const struct gn_ops *ops, const void *ctx, const struct gn_vm *vm, uint64_t proto, char *out,
		  size_t size)
{
	for (int i = 0; i < vm->n; i++)
		if (vm->items[i].proto == proto) {
			if (!still_holds(ops, ctx, &vm->items[i]))
				return -1;
			snprintf(out, size, "%s", vm->items[i].name);
			safe_name_fix(out, size, SAFE_LUA_NAME);
			return 0;
		}
	return -1;
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
	}
	vm->space = space;
	vm->g = g;
	vm->reg = 0;
	vm->n = vm->nmods = vm->next_mod = 0;
	vm->built = -1e9;
	vm->used = 1;
	return vm;
}

/* Whether the walk of vm must start again: another VM at its address (another registry, or
 * its first function gone), or, when it has ended, functions defined since. */
static int walk_again(struct walk *w, uint64_t reg)
{
	struct gn_vm *vm = w->vm;
	if (vm->reg != reg || (vm->n > 0 && !still_holds(w->ops, w->ctx, &vm->items[0])))
		return 1;
	int ended = vm->next_mod >= vm->nmods || vm->work <= 0 || vm->n >= GN_NAMES;
	return ended && now_sec() - vm->built >= GN_STALE;
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
	struct walk w = { ops, ctx, vm_of(space, g), NULL };
	if (lookup(ops, ctx, w.vm, proto, out, size) == 0)
		return 0;
	if (walk_again(&w, reg) && begin_walk(&w, reg))
		return -2;
	while (walk_next(&w))
		if (lookup(ops, ctx, w.vm, proto, out, size) == 0)
			return 0;
	return -1;
}

void global_names_clear(void)
{
	for (int i = 0; i < GN_VMS; i++) {
		free(vms[i].items);
		free(vms[i].mods);
		vms[i] = (struct gn_vm){ 0 };
	}
	next_vm = 0;
}
