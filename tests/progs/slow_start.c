/* Preloaded into a Lua interpreter: a host whose own setup takes 0.3 s before it makes its
 * Lua state, so that the state's heap appears well after the process's maps were first read. */
#include <unistd.h>

__attribute__((constructor)) static void host_setup(void) { usleep(300000); }
