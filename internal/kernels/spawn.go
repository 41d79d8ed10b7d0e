package kernels

// SpawnKernel names a creation kernel (spawn.c, spawn_ctr.c).
type SpawnKernel string

// The creation kernels; one op is one creation, run to its end and reaped.
const (
	SpawnThread     SpawnKernel = "spawn-thread"      // pthread_create + pthread_join
	SpawnFork       SpawnKernel = "spawn-fork"        // fork + _exit + waitpid
	SpawnForkExec   SpawnKernel = "spawn-fork-exec"   // fork + execveat(ELF) + waitpid
	SpawnVforkExec  SpawnKernel = "spawn-vfork-exec"  // vfork + execveat(ELF) + waitpid
	SpawnPosixSpawn SpawnKernel = "spawn-posix-spawn" // posix_spawn(ELF) + waitpid
	SpawnContainer  SpawnKernel = "spawn-container"   // cgroup + clone(namespaces) + exec + wait + teardown
)

// SockFilter is one instruction of a seccomp program, laid out as struct
// sock_filter (code, jump if true, jump if false, constant).
type SockFilter struct {
	Code   uint16
	Jt, Jf uint8
	K      uint32
}

// SpawnContainerSpec is one container creation for SpawnContainer.
type SpawnContainerSpec struct {
	CloneFlags          uint64   // CLONE_NEW* flags
	UserNS              bool     // map 0 to UID/GID in the new user namespace
	UID, GID            int      // host ids mapped to 0
	CgroupDirs          []string // made and removed per container, outermost first
	CgroupProcs         string   // the leaf's cgroup.procs; "" for no cgroup
	CgroupNSAfterAttach bool     // child unshares its cgroup namespace after the attach
	Seccomp             []SockFilter
	DropCaps            bool
	KeepCaps            uint64 // capability mask kept when DropCaps
	LastCap             int    // /proc/sys/kernel/cap_last_cap
}
