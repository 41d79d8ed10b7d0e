package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// childrenLeft lists this process's children, "" when it has none
// (/proc/PID/task/*/children).
func childrenLeft() string {
	var left []string
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range tasks {
		if b, _ := os.ReadFile(f); len(strings.TrimSpace(string(b))) > 0 {
			left = append(left, strings.TrimSpace(string(b)))
		}
	}
	return strings.Join(left, " ")
}
