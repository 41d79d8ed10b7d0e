package host

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// CoreKinds maps this Mac's CPUs to their core types from its performance
// levels (sysctl hw.nperflevels, hw.perflevelN.name and .logicalcpu), in
// the order KindsByLevel assumes; nil on a Mac of one core type.
func CoreKinds() map[int]CoreKind {
	n, err := unix.SysctlUint32("hw.nperflevels")
	if err != nil {
		return nil
	}
	var levels []PerfLevel
	for i := range int(n) {
		p := "hw.perflevel" + strconv.Itoa(i) + "."
		cpus, err := unix.SysctlUint32(p + "logicalcpu")
		if err != nil {
			return nil
		}
		name, _ := unix.Sysctl(p + "name")
		levels = append(levels, PerfLevel{Name: name, CPUs: int(cpus)})
	}
	return KindsByLevel(levels)
}
