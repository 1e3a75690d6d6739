/* The colour of a frame, from its kind (frame_label.h): the kind picks the palette, a hash
 * of the name the shade; and the kinds' names for legends. */
#ifndef LF_KIND_H
#define LF_KIND_H
#include <stddef.h>
#include <stdint.h>
#include "frame_label.h"


const char *kind_label(enum frame_kind k);
/* "#rrggbb" for a frame of kind K whose name hashes to HASH; BUF holds 8 bytes. */
void kind_color(enum frame_kind k, uint32_t hash, char buf[8]);

#endif
