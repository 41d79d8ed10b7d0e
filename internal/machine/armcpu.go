package machine

import (
	"fmt"
	"strconv"
	"strings"
)

// An arm64 /proc/cpuinfo names no model: each processor gives its "CPU
// implementer" and "CPU part" (the MIDR_EL1 fields), which name the core.
// The table is the kernel's arch/arm64/include/asm/cputype.h and Arm's
// technical reference manuals; a part it does not list is shown by number.

// armImplementers names the implementer codes.
var armImplementers = map[uint64]string{
	0x41: "ARM", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu", 0x48: "HiSilicon",
	0x4e: "NVIDIA", 0x50: "APM", 0x51: "Qualcomm", 0x61: "Apple", 0x6d: "Microsoft", 0xc0: "Ampere",
}

// armParts names the cores by implementer and part.
var armParts = map[[2]uint64]string{
	{0x41, 0xd03}: "Cortex-A53", {0x41, 0xd04}: "Cortex-A35", {0x41, 0xd05}: "Cortex-A55",
	{0x41, 0xd07}: "Cortex-A57", {0x41, 0xd08}: "Cortex-A72", {0x41, 0xd09}: "Cortex-A73",
	{0x41, 0xd0a}: "Cortex-A75", {0x41, 0xd0b}: "Cortex-A76", {0x41, 0xd0c}: "Neoverse-N1",
	{0x41, 0xd0d}: "Cortex-A77", {0x41, 0xd0e}: "Cortex-A76AE", {0x41, 0xd40}: "Neoverse-V1",
	{0x41, 0xd41}: "Cortex-A78", {0x41, 0xd42}: "Cortex-A78AE", {0x41, 0xd44}: "Cortex-X1",
	{0x41, 0xd46}: "Cortex-A510", {0x41, 0xd47}: "Cortex-A710", {0x41, 0xd48}: "Cortex-X2",
	{0x41, 0xd49}: "Neoverse-N2", {0x41, 0xd4a}: "Neoverse-E1", {0x41, 0xd4b}: "Cortex-A78C",
	{0x41, 0xd4c}: "Cortex-X1C", {0x41, 0xd4d}: "Cortex-A715", {0x41, 0xd4e}: "Cortex-X3",
	{0x41, 0xd4f}: "Neoverse-V2", {0x41, 0xd80}: "Cortex-A520", {0x41, 0xd81}: "Cortex-A720",
	{0x41, 0xd82}: "Cortex-X4", {0x41, 0xd84}: "Neoverse-V3", {0x41, 0xd85}: "Cortex-X925",
	{0x41, 0xd87}: "Cortex-A725", {0x41, 0xd8e}: "Neoverse-N3",
	{0x43, 0x0a1}: "ThunderX", {0x43, 0x0af}: "ThunderX2", {0x42, 0x516}: "Vulcan",
	{0x46, 0x001}: "A64FX", {0x48, 0xd01}: "TaiShan v110 (Kunpeng 920)",
	{0x4e, 0x003}: "Denver", {0x4e, 0x004}: "Carmel",
	{0x50, 0x000}: "X-Gene",
	{0x61, 0x022}: "M1 Icestorm", {0x61, 0x023}: "M1 Firestorm",
	{0x61, 0x032}: "M2 Blizzard", {0x61, 0x033}: "M2 Avalanche",
	{0x6d, 0xd49}: "Azure Cobalt 100",
	{0xc0, 0xac3}: "Ampere-1", {0xc0, 0xac4}: "Ampere-1A",
}

// armCore is one processor's identification in an arm64 /proc/cpuinfo.
type armCore struct {
	implementer, part, variant, revision, architecture uint64
	features                                           []string
}

// vendor is the implementer's name, or its number where the table does
// not know it.
func (c armCore) vendor() string {
	if v, ok := armImplementers[c.implementer]; ok {
		return v
	}
	return fmt.Sprintf("implementer %#x", c.implementer)
}

// name is the core's name: the implementer and the core ("ARM
// Neoverse-N1"), or the numbers of a part the table does not know.
func (c armCore) name() string {
	if core, ok := armParts[[2]uint64{c.implementer, c.part}]; ok {
		return c.vendor() + " " + core
	}
	return fmt.Sprintf("%s part %#x", c.vendor(), c.part)
}

// set records one "key : value" line of a processor's block; it says
// whether the key was one of arm64's.
func (c *armCore) set(k, v string) bool {
	num := func() uint64 {
		n, _ := strconv.ParseUint(v, 0, 64) // "0x41", "8"
		return n
	}
	switch k {
	case "CPU implementer":
		c.implementer = num()
	case "CPU part":
		c.part = num()
	case "CPU variant":
		c.variant = num()
	case "CPU revision":
		c.revision = num()
	case "CPU architecture":
		c.architecture = num()
	case "Features":
		c.features = strings.Fields(v)
	default:
		return false
	}
	return true
}
