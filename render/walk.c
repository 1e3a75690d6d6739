/* Stacks into the tree one line after another (see walk.h). Folded files are sorted, so
 * a line shares most of its frames with the line before: those frames are taken from
 * the previous line's path, found by comparing bytes, and only the rest is looked up.
 *
 * With pruning, once the input has left a frame for good its total is final, and a frame
 * narrower than the narrowest drawn one can lose its subtree: none of it can be drawn.
 * It keeps its own total, for its siblings' places. That keeps the tree to the frames
 * that can be drawn and their children; and since the frames a line adds are nearly all
 * dropped again when the next lines leave them, they stay pending (no node, no interned
 * name) until then, and get a node only if their parent could still be drawn. A pending
 * frame's parent is a node or pending, and it is the only child a pending parent has:
 * the pending frames are the path's last ones. */
#include <string.h>
#include "layout.h"
#include "walk.h"

static uint64_t total_at(const struct path *p, size_t d)
{
	return p->node[d] ? p->node[d]->total : p->pend[d].total;
}

/* Whether frame T is the path's frame at depth D: the same name once stored. */
static int same_frame(const struct path *p, size_t d, const struct frame_text *t)
{
	size_t n = flame_name_len(t->name, t->len);
	if (p->node[d])
		return p->node[d]->len == n && names_same(p->node[d]->name, t->name, n);
	return p->pend[d].len == n && names_same(p->pend[d].name, t->name, n);
}

/* Makes frame D a pending frame: its bytes stay where they are when they are the input's
 * own (in the read buffer), else (cleaned into F's scratch space) they are interned. */
static int pend(struct loader *ld, size_t d, const struct frame_text *t)
{
	struct path *p = ld->path;
	struct pending *q = &p->pend[d];
	q->len = flame_name_len(t->name, t->len);
	q->interned = !t->in_place;
	q->name = t->name;
	if (t->rec) {
		q->name = t->rec->bytes;   /* interned already */
	} else if (q->interned) {
		const struct name_rec *r = names_intern(&ld->f->names, t->name, q->len);
		if (!r)
			return -1;
		q->name = r->bytes;
	}
	q->total = q->self = 0;
	p->node[d] = NULL;
	if (p->pend_from > d)
		p->pend_from = d;
	return 0;
}

/* Gives pending frame D a node, under D - 1's, which has one. No child of the parent has
 * its name: a line reaching one would have come through this frame. */
static int materialize(struct loader *ld, size_t d)
{
	struct path *p = ld->path;
	const struct pending *q = &p->pend[d];
	struct fnode *parent = d ? p->node[d - 1] : &ld->f->root;
	struct fnode *x = flame_child_fresh(ld->f, parent, q->name, q->len);
	if (!x)
		return -1;
	x->total = q->total;
	x->self = q->self;
	p->node[d] = x;
	return 0;
}

/* Gives the pending frames above depth TO their nodes. */
static int materialize_to(struct loader *ld, size_t to)
{
	struct path *p = ld->path;
	for (size_t d = p->pend_from; d < to; d++)
		if (materialize(ld, d) < 0)
			return -1;
	if (p->pend_from < to)
		p->pend_from = to;
	return 0;
}

/* Frames FROM to TO - 1 of the previous line are left for good; frame FROM - 1 stays on
 * the path. Those narrower than a frame can be drawn lose their subtrees, deepest first.
 * A pending frame gets its node when its parent stays or is wide enough to be drawn;
 * below a narrow parent it is dropped. */
static int leave(struct loader *ld, size_t from, size_t to)
{
	struct path *p = ld->path;
	if (from >= to)
		return 0;
	if (materialize_to(ld, from) < 0)   /* frame FROM's parent must be a node */
		return -1;
	uint64_t min = layout_min_samples(ld->prune, ld->f->root.total);
	size_t first = p->pend_from < to ? p->pend_from : to;   /* pending from here */
	for (size_t d = first; d < to; d++) {
		if (d > from && total_at(p, d - 1) < min) {
			ld->pruned = 1;
			break;
		}
		if (materialize(ld, d) < 0)
			return -1;
	}
	for (size_t d = first; d-- > from;) {
		struct fnode *x = p->node[d];
		if (x->child && x->total < min) {
			flame_drop_children(ld->f, x);
			ld->pruned = 1;
		}
	}
	p->pend_from = from;
	return 0;
}

/* Drops the subtrees of every frame below MIN that the input has left (all but the
 * current path, X being DEPTH frames deep). Frames kept early on, while the total and
 * with it the minimum were small, go here. */
static void sweep(struct loader *ld, struct fnode *x, size_t depth, uint64_t min)
{
	const struct path *p = ld->path;
	for (struct fnode *c = x->child; c; c = c->next) {
		int on_path = depth < p->depth && p->node[depth] == c;
		if (!on_path && c->total < min) {
			if (c->child) {
				flame_drop_children(ld->f, c);
				ld->pruned = 1;
			}
		} else if (depth + 1 < FLAME_MAX_DEPTH) {
			sweep(ld, c, depth + 1, min);
		}
	}
}

/* Sweeps whenever the live nodes have doubled since the last sweep, which keeps the
 * work linear in the input. */
static int maybe_sweep(struct loader *ld)
{
	struct flame *f = ld->f;
	if (f->nnodes < 2 * ld->swept)
		return 0;
	sweep(ld, &f->root, 0, layout_min_samples(ld->prune, f->root.total));
	ld->swept = f->nnodes > 4096 ? f->nnodes : 4096;
	return flame_compact(f);
}

/* Adds COUNT to every frame of the path, as flame_count does to nodes. */
static void count_path(struct loader *ld, uint64_t count)
{
	struct flame *f = ld->f;
	struct path *p = ld->path;
	f->saturated |= f->root.total + count < f->root.total;   /* the root holds the largest sum */
	f->root.total = sat_add(f->root.total, count);
	size_t n = p->depth, real = p->pend_from < n ? p->pend_from : n;
	for (size_t d = 0; d < real; d++)
		p->node[d]->total = sat_add(p->node[d]->total, count);
	for (size_t d = real; d < n; d++)
		p->pend[d].total = sat_add(p->pend[d].total, count);
	if (n == real)
		p->node[n - 1]->self = sat_add(p->node[n - 1]->self, count);
	else
		p->pend[n - 1].self = sat_add(p->pend[n - 1].self, count);
}

/* One line's way down the path, frame by frame. */
struct step {
	size_t depth;       /* frames of the line so far */
	size_t old;         /* the previous line's depth */
	int created;        /* the last frame got a new node: none below it can exist */
	int parted;         /* the line has left the previous line's path */
	int pruned;         /* ld->pruned before the last frame */
};

static void step_start(struct loader *ld, struct step *s, size_t shared)
{
	*s = (struct step){ .depth = shared, .old = ld->path->depth, .pruned = ld->pruned };
	if (!ld->prune)
		ld->path->pend_from = FLAME_MAX_DEPTH;   /* never pending */
}

/* The line's next frame T, whose ';' (or end) is at offset END. */
static int step_frame(struct loader *ld, struct step *s, const struct frame_text *t, size_t end)
{
	struct path *p = ld->path;
	struct flame *f = ld->f;
	size_t d = s->depth;
	if (!s->parted && d < s->old && same_frame(p, d, t)) {
		p->end[s->depth++] = end;   /* still on the previous line's path */
		return 0;
	}
	if (!s->parted) {
		s->parted = 1;   /* the previous line's frames from here down are left behind */
		if (ld->prune && leave(ld, d, s->old) < 0)
			return -1;
	}
	struct fnode *parent = d ? p->node[d - 1] : &f->root;
	if (ld->prune && (s->created || !parent)) {
		/* a new frame below a new or pending one: nothing to look up */
		if (pend(ld, d, t) < 0)
			return -1;
	} else {
		struct fnode *at = s->created ? flame_child_fresh(f, parent, t->name, t->len)
			: flame_child_at(f, parent, t->name, t->len, &s->created);
		if (!at)
			return -1;
		if (!s->created && s->pruned)
			ld->unsafe = 1;   /* back in a node the input had left */
		p->node[d] = at;
		if (ld->prune)
			p->pend_from = d + 1;
	}
	s->pruned = ld->pruned;
	p->end[s->depth++] = end;
	return 0;
}

/* The line's frames are all taken: its samples are counted. */
static int step_end(struct loader *ld, struct step *s, uint64_t count)
{
	if (s->depth == 0)
		return 1;
	if (!s->parted && ld->prune && leave(ld, s->depth, s->old) < 0)
		return -1;
	ld->path->depth = s->depth;
	count_path(ld, count);
	if (ld->prune && maybe_sweep(ld) < 0)
		return -1;
	return 0;
}

int walk_line(struct loader *ld, const char *stack, size_t len, size_t same, uint64_t count)
{
	struct path *p = ld->path;   /* the previous line's, overwritten from where they part */
	struct flame *f = ld->f;
	size_t k = 0;
	if (same > len)
		same = len;
	while (k < p->depth && p->end[k] < same)
		k++;   /* frame k and its ';' are the same bytes in both lines */
	size_t pos = k ? p->end[k - 1] + 1 : 0;
	struct frame_text t;
	struct step s;
	step_start(ld, &s, k);
	while (s.depth < FLAME_MAX_DEPTH && flame_next_frame(f, stack, len, &pos, &t))
		if (step_frame(ld, &s, &t, pos - 1) < 0)
			return -1;
	if (s.depth == FLAME_MAX_DEPTH && flame_next_frame(f, stack, len, &pos, &t))
		f->cut_stacks++; /* said at the end: the graph keeps the outermost frames */
	return step_end(ld, &s, count);
}

int walk_names(struct loader *ld, const struct name_rec *const *names, size_t n, size_t shared,
	       uint64_t count)
{
	struct step s;
	if (shared > n || shared > ld->path->depth || n > FLAME_MAX_DEPTH)
		return -1;
	step_start(ld, &s, shared);
	for (size_t d = shared; d < n; d++) {
		struct frame_text t = { names[d]->bytes, names[d]->len, 0, names[d] };
		if (step_frame(ld, &s, &t, 0) < 0)
			return -1;
	}
	return step_end(ld, &s, count);
}

int walk_pin_names(struct loader *ld)
{
	struct path *p = ld->path;
	for (size_t d = p->pend_from; d < p->depth; d++) {
		struct pending *q = &p->pend[d];
		if (q->interned)
			continue;
		const struct name_rec *r = names_intern(&ld->f->names, q->name, q->len);
		if (!r)
			return -1;
		q->name = r->bytes;
		q->interned = 1;
	}
	return 0;
}

int walk_finish(struct loader *ld)
{
	return ld->prune ? materialize_to(ld, ld->path->depth) : 0;
}
