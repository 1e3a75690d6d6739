/* C++ symbol names as people read them: the C++ runtime's own Itanium ABI demangler
 * (__cxa_demangle, linked statically from libsupc++), with the parameter list left out so
 * that a function is one box in a flame graph however it is overloaded or cloned. */
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "util.h"

char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* Length of d without its parameter list (and the qualifiers after it): the text up to the
 * '(' that matches the last ')'. n when there is none. */
static size_t without_params(const char *d, size_t n)
{
	static const char *const quals[] = { " const", " volatile", " &&", " &", " noexcept" };
	size_t end = n;
	for (int again = 1; again;) {
		again = 0;
		for (size_t i = 0; i < sizeof(quals) / sizeof(quals[0]); i++)
			if (ends_with(d, end, quals[i])) {
				end -= strlen(quals[i]);
				again = 1;
			}
	}
	if (end == 0 || d[end - 1] != ')')
		return n;
	size_t depth = 0, i = end;
	while (i > 0) {
		char c = d[--i];
		if (c == ')')
			depth++;
		else if (c == '(' && --depth == 0)
			return i > 0 ? i : n;
	}
	return n;
}

size_t demangle(const char *name, size_t len, char *out, size_t size)
{
	char mangled[DEMANGLE_MAX];
	if (len < 3 || len >= sizeof(mangled) || name[0] != '_' || name[1] != 'Z' || size == 0)
		return 0;
	memcpy(mangled, name, len);
	mangled[len] = '\0';
	int status = -1;
	char *d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (!d || status != 0) {
		free(d);
		return 0;
	}
	size_t n = strlen(d);
	/* "f(int) [clone .cold]": the clone note stays, after the name */
	char *c = ends_with(d, n, "]") ? strstr(d, " [clone ") : NULL;
	size_t clone = c ? (size_t)(c - d) : n;
	size_t keep = without_params(d, clone), tail = n - clone;
	if (keep + tail >= size) {
		free(d);
		return 0;
	}
	memcpy(out, d, keep);
	memcpy(out + keep, d + clone, tail);
	out[keep + tail] = '\0';
	free(d);
	return keep + tail;
}
