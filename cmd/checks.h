/* Checks done before anything is loaded, so that an unusable target or environment
 * fails fast with a message that says what to do (exit status 2). */
#ifndef LF_CHECKS_H
#define LF_CHECKS_H
#include <sys/types.h>

int check_targets(const pid_t *pids, int n);
int check_environment(const char *btf);
#endif
