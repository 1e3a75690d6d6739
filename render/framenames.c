/* Frame bytes to interned names (see framenames.h). names_intern would hash the bytes
 * again after flame_next_frame scanned them, and compare them with each name it meets;
 * here the scan hashes as it goes, and the table holds that hash beside each name, so a
 * probe touches the name only when the hashes agree. A frame that needs cleaning, or is
 * too long, takes the ordinary way (flame_next_frame, names_intern). The words are read
 * in the machine's order: little-endian on every target (x86-64, arm64). */
#include <stdlib.h>
#include <string.h>
#include "framenames.h"

static uint64_t mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0xFF51AFD7ED558CCDull;
	return h ^ (h >> 32);
}

static uint64_t finish(uint64_t h, size_t n)
{
	h = mix(h, n);
	return h ^ (h >> 29);
}

/* Bytes of the frame at S (AVAIL bytes left) before its ';', their hash in *HASH, and
 * whether they are printable ASCII (as text_is_plain): the test of tree.c's scan_frame. */
static size_t scan(const char *s, size_t avail, uint64_t *hash, int *plain)
{
	const uint64_t ones = 0x0101010101010101ull, tops = 0x8080808080808080ull;
	uint64_t h = 0x9E3779B97F4A7C15ull, bad = 0, w = 0;
	size_t i = 0, k = 0;
	for (; i + 8 <= avail; i += 8) {
		memcpy(&w, s + i, 8);
		uint64_t x = w ^ (ones * ';');
		uint64_t semi = (x - ones) & ~x & tops;
		uint64_t odd = (((w - ones * 0x20) & ~w) | (w + ones) | w) & tops;
		if (semi) {
			k = (unsigned)__builtin_ctzll(semi) >> 3;   /* bytes before the ';' */
			uint64_t below = k ? ~0ull >> (64 - 8 * k) : 0;
			bad |= odd & below;
			w &= below;
			goto done;
		}
		bad |= odd;
		h = mix(h, w);
	}
	/* the last bytes of the line, one at a time, into a word as the loop reads them */
	for (w = 0; i + k < avail && s[i + k] != ';'; k++) {
		unsigned char b = (unsigned char)s[i + k];
		bad |= b < 0x20 || b > 0x7E;
		w |= (uint64_t)b << (8 * k);
	}
done:
	if (k)
		h = mix(h, w);
	*hash = finish(h, i + k);
	*plain = !bad;
	return i + k;
}

static int grow(struct frame_names *t)
{
	size_t n = t->nslots ? 2 * t->nslots : 1024;
	struct frame_slot *s = calloc(n, sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < t->nslots; i++) {
		if (!t->slots[i].name)
			continue;
		size_t j = t->slots[i].hash & (n - 1);
		while (s[j].name)
			j = (j + 1) & (n - 1);
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
	return 0;
}

/* The name of N bytes at S with hash H, or the empty slot where it goes. */
static struct frame_slot *find(struct frame_names *t, const char *s, size_t n, uint64_t h)
{
	size_t j = h & (t->nslots - 1);
	for (; t->slots[j].name; j = (j + 1) & (t->nslots - 1)) {
		const struct frame_slot *x = &t->slots[j];
		if (x->hash == h && x->name->len == n && names_same(x->name->bytes, s, n))
			break;
	}
	return &t->slots[j];
}

/* The interned name of frame X of STACK. */
static const struct name_rec *lookup(struct frame_names *t, struct flame *f, const char *stack,
				     size_t len, const struct frame_seen *x)
{
	if ((t->n + 1) * 2 > t->nslots && grow(t) < 0)
		return NULL;
	/* printable ASCII, short enough: the bytes are the name, as flame_next_frame keeps it */
	struct frame_slot *at = x->plain && x->len <= FLAME_MAX_NAME ? find(t, stack + x->start, x->len, x->hash)
		: NULL;
	if (at && at->name)
		return at->name;
	struct frame_text ft;
	size_t pos = x->start;
	if (t->lock)
		pthread_mutex_lock(t->lock);   /* F's scratch and names are shared */
	flame_next_frame(f, stack, len, &pos, &ft);   /* the same frame: it has bytes */
	const struct name_rec *r = names_intern(&f->names, ft.name, flame_name_len(ft.name, ft.len));
	if (t->lock)
		pthread_mutex_unlock(t->lock);
	if (r && at) {
		at->hash = x->hash;
		at->name = r;
		t->n++;
	}
	return r;
}

/* Frames of STACK from POS on, at most MAX, into T->seen, their slots fetched ahead:
 * how many. *POS ends past the last one. */
static size_t scan_line(struct frame_names *t, const char *stack, size_t len, size_t *pos, size_t max)
{
	size_t n = 0;
	while (n < max) {
		while (*pos < len && stack[*pos] == ';')
			++*pos;   /* empty frames, as flame_next_frame skips them */
		if (*pos >= len)
			break;
		struct frame_seen *x = &t->seen[n++];
		x->start = *pos;
		x->len = scan(stack + *pos, len - *pos, &x->hash, &x->plain);
		*pos += x->len + 1;
		if (t->nslots)
			__builtin_prefetch(&t->slots[x->hash & (t->nslots - 1)]);
	}
	return n;
}

long frame_names_line(struct frame_names *t, struct flame *f, const char *stack, size_t len,
		      size_t pos, size_t max, const struct name_rec **names, size_t *end, int *cut)
{
	if (!t->seen && !(t->seen = malloc(FLAME_MAX_DEPTH * sizeof(*t->seen))))
		return -1;
	size_t n = scan_line(t, stack, len, &pos, max < FLAME_MAX_DEPTH ? max : FLAME_MAX_DEPTH);
	for (size_t i = 0; i < n && t->nslots; i++) {
		const struct name_rec *r = t->slots[t->seen[i].hash & (t->nslots - 1)].name;
		if (r)
			__builtin_prefetch(r);   /* its length and first bytes, compared next */
	}
	for (size_t i = 0; i < n; i++) {
		if (!(names[i] = lookup(t, f, stack, len, &t->seen[i])))
			return -1;
		end[i] = t->seen[i].start + t->seen[i].len;
	}
	while (pos < len && stack[pos] == ';')
		pos++;
	*cut = pos < len;
	return (long)n;
}

void frame_names_free(struct frame_names *t)
{
	free(t->slots);
	free(t->seen);
	memset(t, 0, sizeof(*t));
}
