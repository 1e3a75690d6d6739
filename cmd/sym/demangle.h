/* C++ symbol names (Itanium ABI, `_Z...`) turned into what people read, without the
 * parameter list: `_ZN9tarantool5fiber3runEi` is `tarantool::fiber::run`. */
#ifndef LF_DEMANGLE_H
#define LF_DEMANGLE_H
#include <stddef.h>

#define DEMANGLE_MAX 4096 /* longer mangled names are left as they are */

/* Writes the readable form of name (len bytes, not NUL-terminated) into out (size bytes)
 * and returns its length; 0 when name is not a C++ name, or it does not demangle or fit. */
size_t demangle(const char *name, size_t len, char *out, size_t size);
#endif
