package ragd

import (
	"strings"
	"testing"
)

func TestValidProjectName(t *testing.T) {
	for name, want := range map[string]bool{"ragd": true, "my-proj.2": true, "": false, "-x": false, "Upper": false, "a b": false, strings.Repeat("a", 65): false} {
		if ValidProjectName(name) != want {
			t.Errorf("ValidProjectName(%q) != %v", name, want)
		}
	}
}
