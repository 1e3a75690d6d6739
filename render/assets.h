/* The flame graph's script and style sheet, embedded into the binary by embed/assets.S
 * from render/flame.js and render/flame.css (NUL-terminated). */
#ifndef LF_ASSETS_H
#define LF_ASSETS_H
extern const char lf_flame_js[];
extern const char lf_flame_css[];
#endif
