/* Sorting the stack keys of stackkeys.c: byte strings that end at their first 0 byte,
 * into the order memcmp gives them, in time linear in their bytes and n log n; and merging
 * two runs sorted that way. */
#ifndef LF_KEYSORT_H
#define LF_KEYSORT_H
#include <stddef.h>
#include <stdint.h>

struct keyrec {
	uint64_t chunk;             /* 8 bytes of the key, big-endian, 0 past its end */
	const unsigned char *key;   /* ends at its first 0 byte */
};

/* The key's 8 bytes from offset D (at most its length), for keyrec.chunk. */
uint64_t keysort_chunk(const unsigned char *key, size_t d);
/* Sorts A[0..N), whose chunks hold their keys' first 8 bytes: 0, or -1 when out of memory. */
int keysort(struct keyrec *a, size_t n);
/* Keys A[0..NA) and B[0..NB), each sorted (their chunks need not hold anything), into
 * OUT[0..NA+NB) in order; of equal keys, A's come first. */
void keysort_merge(const struct keyrec *a, size_t na, const struct keyrec *b, size_t nb, struct keyrec *out);

#endif
