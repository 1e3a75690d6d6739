/* The render unit tests' way to an SVG: flame_write_svg into a memory buffer, which the
 * caller frees. */
#ifndef LF_TEST_SVG_OF_H
#define LF_TEST_SVG_OF_H
#include <stdio.h>
#include "check.h"
#include "flame.h"

static char *svg_of(struct flame *f, const struct flame_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	CHECK_INT(flame_write_svg(f, o, m), 0);
	fclose(m);
	return buf;
}
#endif
