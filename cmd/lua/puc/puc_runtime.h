/* Finding PUC Lua in a target process: which mapped file holds the Lua core and its
 * version (from the version string in its read-only data), and where its VMs' global
 * states are (a scan of writable memory for the block lua_newstate allocates). */
#ifndef LF_LUA_RUNTIME_H
#define LF_LUA_RUNTIME_H
#include <stdint.h>
#include <sys/types.h>
#include "lua.h"
#include "puc_layouts.h"

struct puc_runtime {
	pid_t pid;
	const struct puc_layout *lay;
	int major, minor, patch;
	char core_path[256];
	uint64_t core_dev, core_inode;
	uint64_t gs[LF_MAX_GS];
	int ngs;
	uint64_t scanned_bytes;
	int reg_hint;  /* register the BPF side tries first, 0xff unknown */
	int explained; /* detection has told the user why this release cannot be read */
	int trusted;   /* the release is newer than lay's tables: lay is used only for VMs it fits */
	/* The API functions a host enters the VM by, as pcs of the core file [lo, hi); hi 0: not
	 * found (a stripped static host). */
	uint32_t entry_lo[LF_LUA_ENTRIES], entry_hi[LF_LUA_ENTRIES];
};

/* 0 and *rt filled when pid runs a PUC Lua this build knows; -1 otherwise (with
 * rt->major set when a Lua of an unknown layout was seen). */
int puc_runtime_detect(pid_t pid, struct puc_runtime *rt);
/* 1 when the global state at g is a live VM of rt->lay: its metamethod names, its main
 * thread's stack bounds and a CallInfo chain reaching the base all check out. */
int puc_runtime_state_ok(const struct puc_runtime *rt, uint64_t g);
/* Scans pid's writable memory for main lua_States (first_look: see SCAN_QUICK); returns the
 * number of VMs found. */
int puc_runtime_scan_states(struct puc_runtime *rt, int first_look);
/* The BPF side's view of rt. */
void puc_runtime_cfg(const struct puc_runtime *rt, uint32_t core_file, struct lf_puc_cfg *out);
#endif
