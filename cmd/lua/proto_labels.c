/* The fingerprinted label lookups shared by the runtime families (proto_labels.h): a cache
 * hit needs no read of the target, which may have freed the function or exited since. A
 * content fingerprint's labels are also kept for its twins, the same function in other
 * lua_States (proto 0 in the cache): a state closed before its functions were read. */
#include <string.h>

#include "proto_labels.h"

#define TWIN_TRUSTED 2     /* a twin's label stands once reads for it outnumber those against by this */
#define TWIN_VOTES_MAX 1000

static struct label_entry *lookup(const struct proto_reader *r, uint64_t proto, int64_t pos, int kind, uint32_t fp)
{
	return fp ? label_cache_get(r->cache, r->space, proto, pos, kind, fp) : NULL;
}

static struct label_entry *remember(const struct proto_reader *r, uint64_t proto, int64_t pos, int kind,
				    uint32_t fp)
{
	return label_cache_put(r->cache, r->space, proto, pos, kind, fp);
}

/* A label read for a function of content fingerprint fp, kept for its twins. Each read of a
 * twin votes: a read of a state being closed (its memory freed, not yet reused) may find the
 * function and garbage where its caller's code was, so the label most reads agree on stands. */
static void twin_put(const struct proto_reader *r, int64_t pos, int kind, uint32_t fp, const char *text, int num)
{
	if (!r->twins || !fp || pos < 0)
		return;
	struct label_entry *e = label_cache_get(r->cache, r->space, 0, pos, kind, fp);
	if (e && e->num == num && !strcmp(e->text, text)) {
		e->votes += e->votes < TWIN_VOTES_MAX;
		return;
	}
	if (e && e->votes > 1) {
		e->votes--;
		return;
	}
	if ((e = label_cache_put(r->cache, r->space, 0, pos, kind, fp))) {
		label_copy(e->text, sizeof e->text, text);
		e->num = num;
		e->votes = 1;
	}
}

/* The label twins of fp agree on, or NULL. */
static const struct label_entry *twin_get(const struct proto_reader *r, int64_t pos, int kind, uint32_t fp)
{
	const struct label_entry *e =
		r->twins && fp && pos >= 0 ? label_cache_get(r->cache, r->space, 0, pos, kind, fp) : NULL;
	return e && e->votes >= TWIN_TRUSTED ? e : NULL;
}

/* Loads proto and the fingerprint it has now into *key: 0, -1 when it cannot be read, -2
 * when it is no longer the function of fingerprint fp (0: any). */
static int current(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint32_t *key)
{
	*key = 0;
	if (r->read(r->ctx, proto, key) < 0 || !*key)
		return -1;
	return fp && *key != fp ? -2 : 0;
}

int proto_label_info(const struct proto_reader *r, uint64_t proto, uint32_t fp, char *chunk, size_t size,
		     int *line)
{
	uint32_t key;
	int first = 0;
	if (!chunk || size == 0)
		return -1;
	chunk[0] = '\0';
	const struct label_entry *e = lookup(r, proto, 0, LABEL_INFO, fp);
	if (!e)
		e = twin_get(r, 0, LABEL_INFO, fp);
	if (!e) {
		int rc = current(r, proto, fp, &key);
		if (rc)
			return rc;
		e = lookup(r, proto, 0, LABEL_INFO, key);
	}
	if (!e) {
		char buf[LABEL_TEXT_MAX];
		struct label_entry *n;
		if (r->chunk(r->ctx, buf, sizeof buf, &first) < 0)
			return -1;
		if ((n = remember(r, proto, 0, LABEL_INFO, key))) {
			label_copy(n->text, sizeof n->text, buf);
			n->num = first;
		}
		twin_put(r, 0, LABEL_INFO, key, buf, first);
		label_copy(chunk, size, buf);
	} else {
		label_copy(chunk, size, e->text);
		first = e->num;
	}
	if (line)
		*line = first;
	return 0;
}

int proto_label_line(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t pc)
{
	uint32_t key;
	struct label_entry *e = lookup(r, proto, (int64_t)pc, LABEL_LINE, fp);
	if (!e) {
		if (current(r, proto, fp, &key))
			return -1;
		e = lookup(r, proto, (int64_t)pc, LABEL_LINE, key);
	}
	if (e)
		return e->num;
	int line = r->line(r->ctx, pc);
	if (line >= 0 && (e = remember(r, proto, (int64_t)pc, LABEL_LINE, key)))
		e->num = line;
	return line;
}

/* A name of the loaded proto (kind LABEL_NAME at a pc, LABEL_GLOBAL in a VM), cached with
 * its absence: name() gives 0 named, -1 no name, below -1 unreadable (not cached). Its twins
 * share it under twin_pos (the pc is their own). Returns 0, -1 (no name) or -2 (unknown). */
static int cached_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, int64_t pos, int64_t twin_pos,
		       int kind, int (*name)(void *ctx, uint64_t arg, char *out, size_t size), uint64_t arg,
		       char *out, size_t size)
{
	uint32_t key;
	if (!out || size == 0)
		return -2;
	out[0] = '\0';
	const struct label_entry *e = lookup(r, proto, pos, kind, fp);
	if (!e)
		e = twin_get(r, twin_pos, kind, fp);
	if (!e) {
		if (current(r, proto, fp, &key))
			return -2;
		e = lookup(r, proto, pos, kind, key);
	}
	if (!e) {
		char buf[LABEL_TEXT_MAX];
		struct label_entry *n;
		buf[0] = '\0';
		int rc = name(r->ctx, arg, buf, sizeof buf);
		if (rc < -1)
			return -2; /* the target could not be read: try again next time */
		if ((n = remember(r, proto, pos, kind, key))) {
			n->num = rc;
			label_copy(n->text, sizeof n->text, rc == 0 ? buf : "");
		}
		twin_put(r, twin_pos, kind, key, rc == 0 ? buf : "", rc);
		if (rc < 0)
			return -1;
		label_copy(out, size, buf);
		return 0;
	}
	if (e->num < 0)
		return -1;
	label_copy(out, size, e->text);
	return 0;
}

int proto_label_call_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t pc,
			  uint32_t callee_fp, char *out, size_t size)
{
	return cached_name(r, proto, fp, (int64_t)pc, callee_fp ? (int64_t)callee_fp : -1, LABEL_NAME, r->call_name,
			   pc, out, size);
}

int proto_label_global_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t L, char *out,
			    size_t size)
{
	return cached_name(r, proto, fp, 0, 0, LABEL_GLOBAL, r->global_name, L, out, size);
}
