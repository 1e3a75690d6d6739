/* Kernel symbols from /proc/kallsyms, for labelling kernel frames. The file is 5 MB of text
 * that the kernel makes as it is read: it is read in large pieces and parsed by hand, and the
 * names kept are copied into one block, so that loading it costs a profile little. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "ksyms.h"
#include "util.h"

#define KSYMS_MAX    10000000
#define KSYMS_READ   (256u << 10)
#define KSYMS_NAME   255

struct ksyms {
	struct elf_sym *s;
	size_t n, cap;
	char *names;       /* every name kept, NUL-terminated, one after the other */
	size_t used, room;
};

static int cmp(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* Keeps addr and the name (offsets into k->names until the end: the block moves as it grows). */
static void keep(struct ksyms *k, uint64_t addr, const char *name, size_t len)
{
	if (k->n == k->cap) {
		k->cap = k->cap ? k->cap * 2 : 65536;
		k->s = xrealloc(k->s, k->cap * sizeof(*k->s));
	}
	if (k->used + len + 1 > k->room) {
		k->room = k->room ? k->room * 2 : 1u << 20;
		k->names = xrealloc(k->names, k->room);
	}
	memcpy(k->names + k->used, name, len);
	k->names[k->used + len] = 0;
	k->s[k->n++] = (struct elf_sym){ addr, 0, (const char *)(uintptr_t)k->used };
	k->used += len + 1;
}

/* One line "ADDR TYPE NAME [module]": kept when it is a function at a nonzero address. */
static void parse_line(struct ksyms *k, const char *p, const char *end)
{
	uint64_t addr = 0;
	int d, digits = 0;
	for (; p < end && (d = hex_digit(*p)) >= 0 && digits < 16; p++, digits++)
		addr = addr << 4 | (uint64_t)d;
	if (!digits || !addr || end - p < 4 || p[0] != ' ' || p[2] != ' ')
		return;
	char type = p[1];
	if (type != 't' && type != 'T' && type != 'W' && type != 'w')
		return;
	const char *name = p + 3, *stop = name;
	while (stop < end && *stop != ' ' && *stop != '\t' && stop - name < KSYMS_NAME)
		stop++;
	if (stop > name)
		keep(k, addr, name, (size_t)(stop - name));
}

struct ksyms *ksyms_load(void)
{
	struct ksyms *k = xcalloc(1, sizeof(*k));
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return k;
	char *buf = xmalloc(KSYMS_READ + 1);
	size_t have = 0;
	for (;;) {
		ssize_t got = read(fd, buf + have, KSYMS_READ - have);
		if (got <= 0) {
			if (have) /* a last line without a newline */
				parse_line(k, buf, buf + have);
			break;
		}
		have += (size_t)got;
		char *line = buf, *nl;
		while ((nl = memchr(line, '\n', have - (size_t)(line - buf))) && k->n < KSYMS_MAX) {
			parse_line(k, line, nl);
			line = nl + 1;
		}
		have -= (size_t)(line - buf);
		memmove(buf, line, have);
		if (have == KSYMS_READ) /* a line longer than the buffer: not kallsyms' shape */
			have = 0;
	}
	close(fd);
	free(buf);
	for (size_t i = 0; i < k->n; i++)
		k->s[i].name = k->names + (uintptr_t)k->s[i].name;
	qsort(k->s, k->n, sizeof(*k->s), cmp);
	return k;
}

const char *ksyms_lookup(const struct ksyms *k, uint64_t addr)
{
	long i = elfsyms_floor(k->s, k->n, addr);
	return i >= 0 ? k->s[i].name : NULL;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	free(k->names);
	free(k->s);
	free(k);
}
