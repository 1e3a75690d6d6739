/* Whether a LuaJIT VM found in memory is of the build its layout describes, asked of the live
 * VM (luajit_vmcheck.c): build options the version string does not tell move or renumber what
 * lua-flame reads. */
#ifndef LF_LUAJIT_VMCHECK_H
#define LF_LUAJIT_VMCHECK_H
#include <stdint.h>
#include "luajit_runtime.h"

/* NULL when the VM whose global_State is g fits layout l; *out is then l with the list of
 * built-ins that VM numbers them by. Else what does not fit ("its dispatch table is not where
 * this layout puts it"). */
/* *undecided: the VM's libraries are not open yet, so which list of built-ins it has is not
 * known: out has the default one until luajit_runtime_recheck decides. */
const char *luajit_vm_check(const struct luajit_runtime *rt, const struct luajit_layout *l, uint64_t g,
			    struct luajit_layout *out, int *undecided);
#endif
