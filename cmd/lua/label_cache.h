/* A cache of labels read from a target's memory (chunk names, lines, call names), keyed by
 * (address space, proto, position, kind) and the fingerprint of the proto, so that an address
 * reused for another proto never returns a stale label, and labels of functions freed since
 * stay known. Shared by the PUC Lua and LuaJIT label readers. */
#ifndef LF_LABEL_CACHE_H
#define LF_LABEL_CACHE_H
#include <stddef.h>
#include <stdint.h>

#define LABEL_TEXT_MAX 256

enum { LABEL_INFO, LABEL_LINE, LABEL_NAME, LABEL_GLOBAL };

struct label_entry {
	uint64_t ctx, proto;        /* key, with pos and kind */
	int64_t pos;
	uint8_t kind, used;
	uint16_t votes;             /* a twin's label (proto_labels.c): reads for it less reads against */
	uint64_t fp;                /* fingerprint of the proto */
	int32_t num;                /* a line, or the namer's result */
	char text[LABEL_TEXT_MAX];
};

/* tags: a word per slot, the key's hash (0: free), probed before the slots themselves: a table
 * of many labels is megabytes, and a probe that touched each slot missed the CPU's caches. */
struct label_cache { struct label_entry *slots; uint64_t *tags; size_t nslots; };

/* The entry for this key and fingerprint, or NULL. */
struct label_entry *label_cache_get(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, uint64_t fp);
/* A slot for this key and fingerprint (its old one, a free one, or an evicted one once the
 * table is at its size limit), with num 0 and empty text; NULL when memory is short. */
struct label_entry *label_cache_put(struct label_cache *c, uint64_t ctx, uint64_t proto, int64_t pos,
				    int kind, uint64_t fp);
void label_cache_clear(struct label_cache *c);
/* The caches are shared by the thread naming new stacks and the drain: the label readers
 * (puc_label.c, luajit_label.c) hold this lock while they use them. */
void label_cache_lock(void);
void label_cache_unlock(void);
void label_cache_free(struct label_cache *c);
/* Copies s into out (size > 0), cut to size - 1 bytes. */
void label_copy(char *out, size_t size, const char *s);
#endif
