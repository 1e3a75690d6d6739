/* Probes, before anything is loaded, for policies that refuse bpf() or perf_event_open
 * even when lua-flame looks privileged (kernel lockdown, a container's seccomp profile,
 * kernel.perf_event_paranoid, an LSM), and says which knob to turn (exit status 2). */
#ifndef LF_RESTRICTIONS_H
#define LF_RESTRICTIONS_H

int check_bpf_allowed(void);
int check_perf_events(void);
#endif
