/* The labels of a sampled Lua function (chunk name and first line, line at a pc, the name
 * its caller called it by), read once from the target and cached by the fingerprint the
 * sample carries: the same lookups for every runtime family, over each family's reader. */
#ifndef LF_PROTO_LABELS_H
#define LF_PROTO_LABELS_H
#include <stddef.h>
#include <stdint.h>

#include "label_cache.h"

/* A runtime family's reader of one function prototype. read loads the proto at addr into
 * ctx and gives the fingerprint it has now (as the BPF side takes it; 0 when unreadable);
 * the others work on the proto loaded last: chunk (0 or -1, with its first line), line at
 * pc (-1: none), and call_name of the call before pc (0 named, -1 no name, below -1 the
 * target could not be read). */
struct proto_reader {
	struct label_cache *cache;
	uint64_t space;               /* the target's address space: entries are per target */
	void *ctx;
	int (*read)(void *ctx, uint64_t proto, uint32_t *fp);
	int (*chunk)(void *ctx, char *out, size_t size, int *line);
	int (*line)(void *ctx, uint64_t pc);
	int (*call_name)(void *ctx, uint64_t pc, char *out, size_t size);
	/* The global name (global_names.h) of the proto in the VM of thread L, answered as
	 * call_name is. */
	int (*global_name)(void *ctx, uint64_t L, char *out, size_t size);
	/* The fingerprints are content fingerprints (LF_FP_CONTENT): labels carry over to twins. */
	int twins;
};

/* For a proto that had fingerprint fp when sampled: a label cached for fp needs no read;
 * else the proto is read only if it still has that fingerprint (fp 0: whatever it holds
 * now), and when it does not, a twin's label stands (twins). proto_label_info returns 0, -1
 * (unreadable) or -2 (no longer that function); proto_label_line the line or -1;
 * proto_label_call_name 0, -1 (no name) or -2 (unknown: the caller could not be read).
 * callee_fp: the called function's fingerprint, which names the call for the caller's twins
 * (0: none). */
int proto_label_info(const struct proto_reader *r, uint64_t proto, uint32_t fp, char *chunk, size_t size,
		     int *line);
int proto_label_line(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t pc);
int proto_label_call_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t pc,
			  uint32_t callee_fp, char *out, size_t size);
/* The name of proto in package.loaded of the VM of thread L (global_names.h): as
 * proto_label_call_name. */
int proto_label_global_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t L, char *out,
			    size_t size);
#endif
