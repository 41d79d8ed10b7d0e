package render

// history_report.go: what the HTML report's History section takes from
// the text of ctxbench history, so that a machine reads the same in both.

// HistoryMachineLines are the lines HistoryText heads a fingerprint with
// (the fingerprint, then host, CPU and kernel, the build, the settings),
// each whole and without its indent.
func HistoryMachineLines(m *HistoryMachine) []string { return machineLines(m) }

// Clean is how many of the cell's sittings were searched for steps (the
// uncontended ones).
func (c *HistoryCell) Clean() int { return clean(c.Points) }
