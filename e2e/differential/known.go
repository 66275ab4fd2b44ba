package differential

import (
	"regexp"

	"github.com/kubecache/kubecache/e2e/internal/target"
)

// Known is a difference between the fake and the real server that is
// written down: accepted in docs/fidelity.md, or relayed to the fake
// server's engineer in docs/requests-fakeapiserver.md until it is fixed.
type Known struct {
	// Where and Path are regular expressions matched against the
	// Difference's fields (unanchored).
	Where, Path string
	// Why says where the difference is written down.
	Why string
}

func (s *Servers) match(d Difference) (Known, bool) {
	for _, k := range s.Known {
		if regexp.MustCompile(k.Where).MatchString(d.Where) && regexp.MustCompile(k.Path).MatchString(d.Path) {
			return k, true
		}
	}
	return Known{}, false
}

func newName(prefix string) string { return target.NewName(prefix) }
