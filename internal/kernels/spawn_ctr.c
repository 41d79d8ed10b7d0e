//go:build linux

/*
 * spawn_ctr.c: what it costs to create a container straight from the kernel
 * features, run it to its end and tear it down. One op (one container) is:
 *
 *   mkdir the container's own cgroup directories (e.g. <slice>/<id>.scope);
 *   clone(2) with the namespace flags (pid, net, mnt, ipc, uts, user...);
 *   the parent writes uid_map/gid_map (user namespace) and moves the child
 *   into its cgroup (cgroup.procs), then releases it through a pipe;
 *   the child unshares its cgroup namespace (now rooted at its cgroup),
 *   drops capabilities, sets no_new_privs and installs the seccomp filter,
 *   then execveat()s the static exit-only ELF;
 *   waitpid(); rmdir the cgroup directories, deepest first.
 *
 * The child is cloned with CLONE_VM on a stack of its own (as glibc's
 * posix_spawn does), so the parent's page tables are not copied: a runtime
 * clones its container init from a small process, and copying this Go
 * process's memory would measure fork, not the container. With no flags,
 * no cgroup, no seccomp and no capability drop, one op is the baseline:
 * clone + pipe handshake + exec + wait.
 *
 * That is the order runc and crun follow (create the cgroup, clone the init
 * process into new namespaces, let the parent attach and map it, sync over a
 * pipe, apply capabilities and seccomp last, exec), without an image, a root
 * file system change or networking beyond an empty net namespace. Network
 * namespace teardown completes asynchronously after the child is reaped
 * (cleanup_net runs from a workqueue), so back-to-back creations also pay
 * for earlier teardowns: the figure is a steady-state rate, not one cold
 * creation.
 *
 * The child only makes raw system calls (read, unshare, prctl, capset,
 * seccomp, execveat, _exit), as the rules require of a fork in a kernel;
 * it shares the parent's memory, writes none of it but its own stack (and
 * errno on a failure, just before it exits), and inherits the creating
 * thread's fully blocked signal mask, so no handler can run in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "spawn_kernels.h"

static char *const ctr_argv[] = {"ctxbench-exit", NULL};
static char *const ctr_envp[] = {NULL};

typedef struct ctr_args {
	const cb_spawn_ctr *c;
	int rfd, wfd, exec_fd;
} ctr_args;

static int ctr_child(void *arg)
{
	const ctr_args *a = arg;
	const cb_spawn_ctr *c = a->c;
	int rfd = a->rfd, wfd = a->wfd, exec_fd = a->exec_fd;
	char ch;
	close(wfd);
	if (read(rfd, &ch, 1) != 1)
		_exit(120); /* the parent gave up before releasing us */
	if (c->cgroupns_after && unshare(CLONE_NEWCGROUP) != 0)
		_exit(121);
	switch (cb_confine(c->drop_caps, c->keep_caps, c->last_cap, c->seccomp)) {
	case 1:
		_exit(122);
	case 2:
		_exit(123);
	}
	syscall(SYS_execveat, exec_fd, "", ctr_argv, ctr_envp, AT_EMPTY_PATH);
	_exit(127);
	return 0;
}

/* The child's stack, mapped for the duration of one cb_spawn_container
 * call (one container kernel runs at a time: Go serialises them). */
#define CTR_STACK (256 * 1024)
static char *ctr_stack;

static int write_str(const char *path, const char *s, cb_block *b)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(b->err, sizeof(b->err), "open %s: %s", path, strerror(errno));
		return -1;
	}
	ssize_t n = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	if (n != (ssize_t)strlen(s)) {
		snprintf(b->err, sizeof(b->err), "write %s: %s", path, strerror(e));
		return -1;
	}
	return 0;
}

/* rmdir_retry removes a cgroup directory; right after the last task is
 * reaped the kernel may still hold it briefly (EBUSY). */
static int rmdir_retry(const char *dir, cb_block *b)
{
	for (int i = 0; i < 20000; i++) {
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		usleep(100);
	}
	snprintf(b->err, sizeof(b->err), "rmdir %s: %s", dir, strerror(errno));
	return -1;
}

static int remove_dirs(const cb_spawn_ctr *c, int made, cb_block *b)
{
	int rc = 0;
	for (int i = made - 1; i >= 0; i--)
		if (rmdir_retry(c->dirs[i], b) != 0)
			rc = -1;
	return rc;
}

static int parent_setup(const cb_spawn_ctr *c, pid_t pid, cb_block *b)
{
	char path[64], text[64];
	if (c->user_ns) {
		snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
		snprintf(text, sizeof(text), "0 %d 1\n", c->uid);
		if (write_str(path, text, b) != 0)
			return -1;
		snprintf(path, sizeof(path), "/proc/%d/setgroups", pid);
		if (write_str(path, "deny", b) != 0)
			return -1;
		snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
		snprintf(text, sizeof(text), "0 %d 1\n", c->gid);
		if (write_str(path, text, b) != 0)
			return -1;
	}
	if (c->procs) {
		snprintf(text, sizeof(text), "%d", pid);
		if (write_str(c->procs, text, b) != 0)
			return -1;
	}
	return 0;
}

static int one_container(cb_block *b, const void *arg)
{
	const cb_spawn_ctr *c = arg;
	int made = 0, pfd[2];

	for (; made < c->ndirs; made++) {
		if (mkdir(c->dirs[made], 0755) != 0) {
			snprintf(b->err, sizeof(b->err), "mkdir %s: %s", c->dirs[made], strerror(errno));
			remove_dirs(c, made, b);
			return -1;
		}
	}
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		snprintf(b->err, sizeof(b->err), "pipe2: %s", strerror(errno));
		remove_dirs(c, made, b);
		return -1;
	}
	ctr_args args = {c, pfd[0], pfd[1], b->fd[0]};
	int pid = clone(ctr_child, ctr_stack + CTR_STACK, (int)(c->clone_flags | CLONE_VM | SIGCHLD), &args);
	int clone_errno = errno;
	close(pfd[0]);
	if (pid < 0) {
		close(pfd[1]);
		snprintf(b->err, sizeof(b->err), "clone with flags %#llx: %s",
			 (unsigned long long)c->clone_flags, strerror(clone_errno));
		remove_dirs(c, made, b);
		return -1;
	}
	int rc = parent_setup(c, pid, b);
	if (rc == 0 && write(pfd[1], "g", 1) != 1) {
		snprintf(b->err, sizeof(b->err), "releasing the child: %s", strerror(errno));
		rc = -1;
	}
	close(pfd[1]); /* on failure the child reads EOF and exits */
	if (rc == 0) {
		rc = cb_spawn_reap(pid, b, "container");
	} else {
		int st; /* keep the first error message */
		while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
			;
	}
	if (remove_dirs(c, made, b) != 0)
		rc = -1;
	return rc;
}

int cb_spawn_container(cb_block *b, const cb_spawn_ctr *c)
{
	cb_spawn_env e;
	if (b->fd[0] < 0) {
		snprintf(b->err, sizeof(b->err), "no exec target descriptor");
		return -1;
	}
	ctr_stack = mmap(NULL, CTR_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (ctr_stack == MAP_FAILED) {
		ctr_stack = NULL;
		snprintf(b->err, sizeof(b->err), "mapping the child stack: %s", strerror(errno));
		return -1;
	}
	if (cb_spawn_begin(b, &e) != 0) {
		cb_spawn_end(&e);
		munmap(ctr_stack, CTR_STACK);
		return -1;
	}
	int rc = cb_spawn_loop(b, one_container, c);
	cb_spawn_end(&e);
	munmap(ctr_stack, CTR_STACK);
	ctr_stack = NULL;
	return rc;
}
