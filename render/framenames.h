/* Frame names straight from the input's bytes to their interned copies, for the reader
 * of unsorted files (stackkeys.c), which looks up every frame of every line: one pass
 * over a frame's bytes finds its ';', checks that nothing needs cleaning and hashes it;
 * a line's frames are scanned before they are looked up, so their table slots are
 * fetched from memory together rather than one after another. */
#ifndef LF_FRAMENAMES_H
#define LF_FRAMENAMES_H
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include "tree.h"

struct frame_slot {
	uint64_t hash;                 /* of the frame's bytes as they stand in the input */
	const struct name_rec *name;
};

/* A frame of the line being looked up. */
struct frame_seen {
	size_t start, len;
	uint64_t hash;
	int plain;
};

struct frame_names {
	struct frame_slot *slots;      /* open addressing, linear probing */
	size_t nslots, n;
	struct frame_seen *seen;       /* FLAME_MAX_DEPTH of them */
	pthread_mutex_t *lock;         /* NULL, or held to intern a name into the flame's table,
					* which readers of other parts of the file share */
};

/* The interned names of the frames of STACK (LEN bytes) from offset POS on, at most MAX,
 * into NAMES, and the offset of each one's ';' (or LEN) into END; empty frames are
 * skipped. Returns how many, or -1 when out of memory; *CUT is set when frames beyond
 * MAX were left out. */
long frame_names_line(struct frame_names *t, struct flame *f, const char *stack, size_t len,
		      size_t pos, size_t max, const struct name_rec **names, size_t *end, int *cut);
void frame_names_free(struct frame_names *t);

#endif
