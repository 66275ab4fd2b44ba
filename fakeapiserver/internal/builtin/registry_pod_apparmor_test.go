package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCreateWarningsAppArmor checks the deprecation warnings of a Pod's
// AppArmor annotations with the real server's answer to
// testdata/defaults/pod-apparmor-annotations.in.json: one per annotation
// of a container without a profile, in container order, none for a
// profile the pod already has.
func TestCreateWarningsAppArmor(t *testing.T) {
	m, obj, _ := load(t, "testdata/defaults/pod-apparmor-annotations.in.json")
	got := CreateWarnings(Kind{Version: "v1", Kind: "Pod"}, m, &obj)
	assert.Equal(t, []string{
		`metadata.annotations[container.apparmor.security.beta.kubernetes.io/i]: deprecated since v1.30; use the "appArmorProfile" field instead`,
		`metadata.annotations[container.apparmor.security.beta.kubernetes.io/d]: deprecated since v1.30; use the "appArmorProfile" field instead`,
	}, got)
	assert.Empty(t, CreateWarnings(Kind{Group: "apps", Version: "v1", Kind: "Deployment"}, m, &obj))
}
