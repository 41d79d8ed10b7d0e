package render

// history_report.go: what the HTML report's History section takes from
// the text of ctxbench history, so that a machine reads the same in both.

import "strings"

// HistoryMachineLines are the lines HistoryText heads a fingerprint with
// (the fingerprint, then host, CPU and kernel, the build, the settings),
// without their indent.
func HistoryMachineLines(m *HistoryMachine) []string {
	var b strings.Builder
	machineHeader(&b, m)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return lines
}

// Clean is how many of the cell's sittings were searched for steps (the
// uncontended ones).
func (c *HistoryCell) Clean() int { return clean(c.Points) }
