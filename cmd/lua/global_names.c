/* Global names of Lua functions (global_names.h): one walk of a VM's package.loaded gives
 * every function a module field holds; later lookups check the one field they answer from,
 * since a VM closed and another made at the same address would hold other functions. */
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
#define GN_WORK (1L << 18)   /* nodes read in one walk, all tables together */
#define GN_CHUNK 64          /* nodes per read */
#define GN_NODE_MAX 64       /* bytes of a node, at most (40 in every known layout) */
#define GN_KEY_MAX 64
#define GN_STALE 1.0         /* seconds: a miss walks a VM again when its walk is older */

struct gn_item { uint64_t proto, fn, node; char name[2 * GN_KEY_MAX]; };
struct gn_vm { uint64_t space, g; double built; int n, used; struct gn_item *items; };
struct gn_module { uint64_t table; char name[GN_KEY_MAX]; };

struct walk {
	const struct gn_ops *ops;
	const void *ctx;
	long work;
	struct gn_vm *vm;
	struct gn_module *mods;
	int nmods;
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
	for (uint32_t i = 0; i < count && w->work > 0; i += GN_CHUNK) {
		uint32_t n = count - i < GN_CHUNK ? count - i : GN_CHUNK;
		w->work -= n;
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
	w->mods[0].table = val;  /* slot 0 holds package.loaded until the modules replace it */
	return 1;
}

/* _G first: a function both global and a module's is named as a global. */
static int add_module(struct walk *w, uint64_t node, uint64_t key, uint64_t val)
{
	(void)node;
	struct gn_module m = { val, "" };
	if (w->nmods >= GN_MODULES || w->ops->string(w->ctx, key, m.name, sizeof m.name) < 0)
		return w->nmods >= GN_MODULES;
	if (strcmp(m.name, "_G") == 0 && w->nmods > 0) {
		w->mods[w->nmods++] = w->mods[0];
		w->mods[0] = m;
	} else {
		w->mods[w->nmods++] = m;
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

/* Reads every function the modules of the VM of L hold into vm: 0, or -1 when its
 * registry or package.loaded could not be read. */
static int walk_vm(const struct gn_ops *ops, const void *ctx, uint64_t reg, struct gn_vm *vm)
{
	struct gn_module *mods = xcalloc(GN_MODULES, sizeof(*mods));
	struct walk w = { ops, ctx, GN_WORK, vm, mods, 0, NULL };
	int rc = -1;
	vm->n = 0;
	if (each_field(&w, reg, GN_TABLE, found_loaded) == 0 && mods[0].table) {
		uint64_t loaded = mods[0].table;
		mods[0].table = 0;
		if (each_field(&w, loaded, GN_TABLE, add_module) == 0) {
			for (int i = 0; i < w.nmods && w.work > 0; i++) {
				w.mod = mods[i].name;
				each_field(&w, mods[i].table, GN_FUNC, add_function); /* an unreadable module: skipped */
			}
			rc = 0;
		}
	}
	free(mods);
	return rc;
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
	if (!vm->items)
		vm->items = xcalloc(GN_NAMES, sizeof(*vm->items));
	vm->space = space;
	vm->g = g;
	vm->n = 0;
	vm->built = -1e9;
	vm->used = 1;
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
	struct gn_vm *vm = vm_of(space, g);
	if (lookup(ops, ctx, vm, proto, out, size) == 0)
		return 0;
	/* Walked a moment ago and still the same VM: the function is in no module. A VM made
	 * where a closed one was (a state per request) no longer holds the first function. */
	double now = now_sec();
	if (now - vm->built < GN_STALE && (vm->n == 0 || still_holds(ops, ctx, &vm->items[0])))
		return -1;
	vm->built = now;
	if (walk_vm(ops, ctx, reg, vm))
		return -2;
	return lookup(ops, ctx, vm, proto, out, size);
}

void global_names_clear(void)
{
	for (int i = 0; i < GN_VMS; i++) {
		free(vms[i].items);
		vms[i] = (struct gn_vm){ 0 };
	}
	next_vm = 0;
}
