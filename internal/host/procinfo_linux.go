package host

// procinfo_linux.go: what Linux's /proc says about a process.

import (
	"fmt"
	"os"
	"strconv"
)

// ThreadCount is how many threads process pid has now
// (/proc/PID/task).
func ThreadCount(pid int) (int, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0, err
	}
	return len(tasks), nil
}

// IsOwnThread says tid is a thread of this process (/proc/self/task/TID
// exists).
func IsOwnThread(tid int) bool {
	_, err := os.Stat("/proc/self/task/" + strconv.Itoa(tid))
	return err == nil
}

// SelfExe is this binary's path, to re-execute it: /proc/self/exe, which
// names it even after it was replaced on disk.
func SelfExe() string { return "/proc/self/exe" }
