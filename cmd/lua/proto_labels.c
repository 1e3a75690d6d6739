/* The fingerprinted label lookups shared by the runtime families (proto_labels.h): a cache
 * hit needs no read of the target, which may have freed the function or exited since. */
#include "proto_labels.h"

static struct label_entry *lookup(const struct proto_reader *r, uint64_t proto, int64_t pos, int kind, uint32_t fp)
{
	return fp ? label_cache_get(r->cache, r->space, proto, pos, kind, fp) : NULL;
}

static struct label_entry *remember(const struct proto_reader *r, uint64_t proto, int64_t pos, int kind,
				    uint32_t fp)
{
	return label_cache_put(r->cache, r->space, proto, pos, kind, fp);
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
	struct label_entry *e = lookup(r, proto, 0, LABEL_INFO, fp);
	if (!e) {
		int rc = current(r, proto, fp, &key);
		if (rc)
			return rc;
		e = lookup(r, proto, 0, LABEL_INFO, key);
	}
	if (!e) {
		char buf[LABEL_TEXT_MAX];
		if (r->chunk(r->ctx, buf, sizeof buf, &first) < 0)
			return -1;
		if ((e = remember(r, proto, 0, LABEL_INFO, key))) {
			label_copy(e->text, sizeof e->text, buf);
			e->num = first;
		}
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
 * its absence: name() gives 0 named, -1 no name, below -1 unreadable (not cached). */
static int cached_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, int64_t pos, int kind,
		       int (*name)(void *ctx, uint64_t arg, char *out, size_t size), uint64_t arg, char *out,
		       size_t size)
{
	uint32_t key;
	if (!out || size == 0)
		return -1;
	out[0] = '\0';
	struct label_entry *e = lookup(r, proto, pos, kind, fp);
	if (!e) {
		if (current(r, proto, fp, &key))
			return -1;
		e = lookup(r, proto, pos, kind, key);
	}
	if (!e) {
		char buf[LABEL_TEXT_MAX];
		buf[0] = '\0';
		int rc = name(r->ctx, arg, buf, sizeof buf);
		if (rc < -1)
			return -1; /* the target could not be read: try again next time */
		if ((e = remember(r, proto, pos, kind, key))) {
			e->num = rc;
			label_copy(e->text, sizeof e->text, rc == 0 ? buf : "");
		}
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

int proto_label_call_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t pc, char *out,
			  size_t size)
{
	return cached_name(r, proto, fp, (int64_t)pc, LABEL_NAME, r->call_name, pc, out, size);
}

int proto_label_global_name(const struct proto_reader *r, uint64_t proto, uint32_t fp, uint64_t L, char *out,
			    size_t size)
{
	return cached_name(r, proto, fp, 0, LABEL_GLOBAL, r->global_name, L, out, size);
}
