package differential

import (
	"testing"
)

// TestNormalizeMessageResourceVersions checks that the resourceVersions a
// Status message quotes compare equal whatever their length, so a fresh
// fake server's one-digit versions match the real server's longer ones,
// while other one-digit numbers of a message still count.
func TestNormalizeMessageResourceVersions(t *testing.T) {
	same := [][2]string{
		{"Timeout: Too large resource version: 999999999, current: 7", "Timeout: Too large resource version: 999999999, current: 512"},
		{
			`Operation cannot be fulfilled on configmaps "a": the ResourceVersion in the precondition (8) does not match the ResourceVersion in record (9). The object might have been modified`,
			`Operation cannot be fulfilled on configmaps "a": the ResourceVersion in the precondition (511) does not match the ResourceVersion in record (1013). The object might have been modified`,
		},
	}
	for _, p := range same {
		a, b := normalize(p[0], "message"), normalize(p[1], "message")
		if a != b {
			t.Errorf("normalized messages differ:\n  %q\n  %q", a, b)
		}
	}
	if a, b := normalize("spec.replicas: Invalid value: 1", "message"), normalize("spec.replicas: Invalid value: 2", "message"); a == b {
		t.Errorf("one-digit values outside resourceVersions must still differ: both %q", a)
	}
}
