package platform

import "testing"

func TestThisIsDarwin(t *testing.T) {
	if This.OS != "darwin" {
		t.Errorf("a macOS build answers as %s", This.Name)
	}
}
