package admission

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestWebhookConditionRequestTyped compiles match conditions against the
// typed request: its fields compile, one AdmissionRequest lacks (uid
// among them) does not.
func TestWebhookConditionRequestTyped(t *testing.T) {
	for _, ok := range []string{
		`request.userInfo.username == "admin" && request.kind.kind == "Pod"`,
		`request.userInfo.groups.exists(g, g == "x") || request.userInfo.extra["k"][0] == "v"`,
		`request.dryRun || request.options.x == 1 || has(request.namespace)`,
		`request.resource.resource == "pods" && request.requestResource.version == "v1" && request.subResource == ""`,
	} {
		assert.Empty(t, CheckWebhookCondition(ok), ok)
	}
	assert.Contains(t, CheckWebhookCondition(`request.uid == ""`), "undefined field 'uid'")
	assert.Contains(t, CheckWebhookCondition(`request.kind.nosuch == ""`), "undefined field 'nosuch'")
	assert.Contains(t, CheckWebhookCondition(`request.name + 1 == "a"`), "found no matching overload for '_+_' applied to '(string, int)'")
}
