package e2e

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Processes lists live (not zombie) processes running bin, with their argv:
// the process table (sysctl kern.proc.all) gives each process's name, the
// first 16 bytes of its binary's; ps(1) gives the argv of those that match.
func Processes(bin string) map[int]string {
	out := map[int]string{}
	name := filepath.Base(bin)
	if len(name) > 16 { // MAXCOMLEN
		name = name[:16]
	}
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return out
	}
	const sZomb = 5 // SZOMB, sys/proc.h
	for _, kp := range kps {
		if kp.Proc.P_stat == sZomb || unix.ByteSliceToString(kp.Proc.P_comm[:]) != name {
			continue
		}
		pid := int(kp.Proc.P_pid)
		argv, err := exec.Command("ps", "-o", "command=", "-p", strconv.Itoa(pid)).Output()
		if err != nil || !strings.HasPrefix(string(argv), bin) {
			continue // gone, or another program of the same name
		}
		out[pid] = strings.TrimSpace(string(argv))
	}
	return out
}
