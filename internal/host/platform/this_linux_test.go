package platform

import "testing"

func TestThisIsLinux(t *testing.T) {
	if This.OS != "linux" {
		t.Errorf("a Linux build answers as %s", This.Name)
	}
}
