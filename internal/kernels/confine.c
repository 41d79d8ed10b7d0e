//go:build linux

/*
 * confine.c: what a container runtime applies to a process itself, last,
 * just before the workload runs: it keeps only the given capabilities (the
 * bounding set first, then ambient, effective, permitted and inheritable),
 * then sets no_new_privs and installs a seccomp filter. Namespaces and the
 * cgroup are entered by the parent when it starts the process.
 *
 * Two callers: a container creation's cloned child (spawn_ctr.c), which
 * confines itself between clone and exec, and a single-threaded side
 * (st.c), which confines itself before its C kernel and before any Go code
 * could start a thread. So only raw system calls (prctl, capget, capset,
 * seccomp) are made here, and a single thread is assumed: no
 * SECCOMP_FILTER_FLAG_TSYNC, capabilities set for the calling thread.
 */
#define _GNU_SOURCE
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernels.h"

int cb_confine(int drop_caps, uint64_t keep_caps, int last_cap, const void *seccomp_fprog)
{
	if (drop_caps) {
		struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
		struct __user_cap_data_struct data[2];
		for (int cap = 0; cap <= last_cap && cap < 64; cap++)
			if (!(keep_caps & (1ull << cap)))
				prctl(PR_CAPBSET_DROP, cap, 0, 0, 0); /* EINVAL for a cap the kernel lacks */
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		if (syscall(SYS_capget, &hdr, data) != 0)
			return 1;
		for (int i = 0; i < 2; i++) {
			uint32_t keep = (uint32_t)(keep_caps >> (32 * i));
			data[i].effective &= keep;
			data[i].permitted &= keep;
			data[i].inheritable = 0;
		}
		if (syscall(SYS_capset, &hdr, data) != 0)
			return 1;
	}
	if (seccomp_fprog) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
			return 2;
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, seccomp_fprog) != 0)
			return 2;
	}
	return 0;
}
