/* The callgrind writer, for KCacheGrind and callgrind_annotate: one function per
 * distinct frame label with its self samples, and call edges carrying inclusive
 * samples, counted once per stack so recursion does not inflate them. */
#include <stdlib.h>
#include <string.h>

#include "stack_strings.h"
#include "out_formats.h"

struct cg_func { uint32_t file; long line; uint64_t self; };
struct cg_edge { uint32_t caller, callee; uint64_t cost; size_t stamp; };

struct callgrind {
	struct intern funcs, files, edges;
	struct cg_func *fn;
	struct cg_edge *edge;
	size_t fn_cap, edge_cap;
	unsigned char *named_fn, *named_file;   /* name already written once (compression) */
};

static uint32_t func_of(struct callgrind *cg, const struct frame_span *s)
{
	int added;
	uint32_t id = intern_add(&cg->funcs, s->s, s->len, &added);
	if (added) {
		struct frame_label fl;
		frame_label_parse(s->s, s->len, &fl);
		if (id == cg->fn_cap) {
			cg->fn_cap = cg->fn_cap ? cg->fn_cap * 2 : 256;
			cg->fn = xrealloc(cg->fn, cg->fn_cap * sizeof(*cg->fn));
		}
		/* "???" is what valgrind itself writes for an unknown file. */
		uint32_t file = fl.file_len ? intern_add(&cg->files, fl.file, fl.file_len, NULL)
					    : intern_add(&cg->files, "???", 3, NULL);
		cg->fn[id] = (struct cg_func){ file, fl.line, 0 };
	}
	return id;
}

/* Adds count to the edge caller -> callee unless this stack (stamp) already did. */
static void add_edge(struct callgrind *cg, uint32_t caller, uint32_t callee, uint64_t count, size_t stamp)
{
	uint32_t key[2] = { caller, callee };
	int added;
	uint32_t id = intern_add(&cg->edges, (const char *)key, sizeof(key), &added);
	if (added) {
		if (id == cg->edge_cap) {
			cg->edge_cap = cg->edge_cap ? cg->edge_cap * 2 : 256;
			cg->edge = xrealloc(cg->edge, cg->edge_cap * sizeof(*cg->edge));
		}
		cg->edge[id] = (struct cg_edge){ caller, callee, 0, 0 };
	}
	if (cg->edge[id].stamp == stamp)
		return;
	cg->edge[id].stamp = stamp;
	cg->edge[id].cost += count;
}

static void collect(struct callgrind *cg, struct prof_entry **v)
{
	struct frame_span *fr = NULL;
	size_t cap = 0;
	uint32_t *ids = NULL;
	for (size_t i = 0; v[i]; i++) {
		size_t n = stack_frames(v[i]->stack, v[i]->len, &fr, &cap);
		ids = xrealloc(ids, n * sizeof(*ids));
		for (size_t j = 0; j < n; j++)
			ids[j] = func_of(cg, &fr[j]);
		cg->fn[ids[n - 1]].self += v[i]->count;
		for (size_t j = 0; j + 1 < n; j++)
			add_edge(cg, ids[j], ids[j + 1], v[i]->count, i + 1);
	}
	free(fr);
	free(ids);
}

/* Callgrind is line-based: a newline inside a name would end it early. */
static void put_name(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		putc(s[i] == '\n' || s[i] == '\r' ? '?' : s[i], f);
}

/* "key=(id) name" the first time, "key=(id)" after (callgrind's name compression). */
static void put_ref(FILE *f, const char *key, uint32_t id, unsigned char *named, const struct intern *t)
{
	fprintf(f, "%s=(%u)", key, id + 1);
	if (!named[id]) {
		named[id] = 1;
		putc(' ', f);
		put_name(f, t->str[id], t->len[id]);
	}
	putc('\n', f);
}

/* Edge indices grouped by caller (a counting sort: first-seen order within a caller),
 * with first[f]..first[f + 1] the range of function f's calls. */
static uint32_t *edges_by_caller(const struct callgrind *cg, size_t **first_out)
{
	size_t *first = xcalloc(cg->funcs.n + 1, sizeof(*first));
	uint32_t *order = xcalloc(cg->edges.n + 1, sizeof(*order));
	for (size_t e = 0; e < cg->edges.n; e++)
		first[cg->edge[e].caller + 1]++;
	for (size_t f = 0; f < cg->funcs.n; f++)
		first[f + 1] += first[f];
	size_t *next = xcalloc(cg->funcs.n + 1, sizeof(*next));
	memcpy(next, first, (cg->funcs.n + 1) * sizeof(*next));
	for (size_t e = 0; e < cg->edges.n; e++)
		order[next[cg->edge[e].caller]++] = (uint32_t)e;
	free(next);
	*first_out = first;
	return order;
}

static void put_header(FILE *f, const struct profile *p)
{
	fputs("# callgrind format\nversion: 1\ncreator: lua-flame " LUA_FLAME_VERSION "\n", f);
	size_t np = strnlen(p->pids, sizeof(p->pids));
	if (np && strspn(p->pids, "0123456789") == np)
		fprintf(f, "pid: %.*s\n", (int)np, p->pids);
	else if (np) {
		fputs("desc: Processes: ", f);
		put_name(f, p->pids, np);
		putc('\n', f);
	}
	if (p->command[0]) {
		fputs("cmd: ", f);
		put_name(f, p->command, strnlen(p->command, sizeof(p->command)));
		putc('\n', f);
	}
	fprintf(f, "desc: Sampling: %s time at %d Hz\n", p->wall ? "wall-clock" : "CPU", p->hz > 0 ? p->hz : 99);
	if (p->duration > 0)
		fprintf(f, "desc: Duration: %.3f s\n", p->duration);
	if (p->lost)
		fprintf(f, "desc: Lost samples: %llu\n", (unsigned long long)p->lost);
	fputs("positions: line\nevents: Samples\n", f);
}

static void put_body(FILE *f, struct callgrind *cg)
{
	size_t *first;
	uint32_t *order = edges_by_caller(cg, &first);
	for (uint32_t i = 0; i < cg->funcs.n; i++) {
		const struct cg_func *fn = &cg->fn[i];
		if (!fn->self && first[i] == first[i + 1])
			continue;
		putc('\n', f);
		put_ref(f, "fl", fn->file, cg->named_file, &cg->files);
		put_ref(f, "fn", i, cg->named_fn, &cg->funcs);
		if (fn->self)
			fprintf(f, "%ld %llu\n", fn->line, (unsigned long long)fn->self);
		for (size_t k = first[i]; k < first[i + 1]; k++) {
			const struct cg_edge *e = &cg->edge[order[k]];
			const struct cg_func *callee = &cg->fn[e->callee];
			put_ref(f, "cfl", callee->file, cg->named_file, &cg->files);
			put_ref(f, "cfn", e->callee, cg->named_fn, &cg->funcs);
			/* Call counts are not observed by sampling: the edge's samples stand in. */
			fprintf(f, "calls=%llu %ld\n%ld %llu\n", (unsigned long long)e->cost, callee->line,
				fn->line, (unsigned long long)e->cost);
		}
	}
	free(order);
	free(first);
}

int write_callgrind(FILE *f, const struct profile *p)
{
	struct callgrind cg;
	memset(&cg, 0, sizeof(cg));
	intern_init(&cg.funcs);
	intern_init(&cg.files);
	intern_init(&cg.edges);
	struct prof_entry **v = profile_sorted(p);
	collect(&cg, v);
	free(v);
	cg.named_fn = xcalloc(cg.funcs.n + 1, 1);
	cg.named_file = xcalloc(cg.files.n + 1, 1);
	put_header(f, p);
	put_body(f, &cg);
	fprintf(f, "\ntotals: %llu\n", (unsigned long long)p->total);
	intern_free(&cg.funcs);
	intern_free(&cg.files);
	intern_free(&cg.edges);
	free(cg.fn);
	free(cg.edge);
	free(cg.named_fn);
	free(cg.named_file);
	return ferror(f) ? -1 : 0;
}
