package builtin

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGMSACredentialSpecLimit checks the 64 KiB limit of an inline GMSA
// credential spec with the real server's cause (too large for testdata
// files): 64 KiB is accepted, one byte more is refused and shown whole.
func TestGMSACredentialSpecLimit(t *testing.T) {
	pod := func(spec string) []FieldError {
		m, obj, _ := loadBytes(t, []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"securityContext":{"windowsOptions":{"gmsaCredentialSpec":"`+spec+`"}},"containers":[{"name":"c","image":"i"}]}}`))
		Default("", "v1", "Pod", m, &obj)
		return Validate("", "Pod", m, &obj)
	}
	assert.Empty(t, pod(strings.Repeat("x", 64*1024)), "exactly 64 KiB is allowed")

	big := strings.Repeat("x", 64*1024+1)
	errs := pod(big)
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.securityContext.windowsOptions.gmsaCredentialSpec", errs[0].Field)
	assert.Equal(t, `Invalid value: "`+big+`": gmsaCredentialSpec size must be under 64 KiB`, Message(errs[0]))
}
