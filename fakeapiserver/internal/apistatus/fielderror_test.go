package apistatus

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/meta"
)

// TestInvalidDropsRepeatedErrors checks that an error reported twice is
// answered once, in the causes and the message, as a real server answers
// an events.k8s.io Event update that changes its reason (its validator
// checks the reason twice).
func TestInvalidDropsRepeatedErrors(t *testing.T) {
	reason := FieldInvalid("reason", "B", "field is immutable")
	st := Invalid("events.k8s.io", "Event", "ev", []FieldError{reason, FieldRequired("type", ""), reason})
	assert.Equal(t, `Event.events.k8s.io "ev" is invalid: [reason: Invalid value: "B": field is immutable, type: Required value]`, st.Message)
	assert.Equal(t, []meta.StatusCause{
		{Type: meta.CauseFieldValueInvalid, Message: `Invalid value: "B": field is immutable`, Field: "reason"},
		{Type: meta.CauseFieldValueRequired, Message: "Required value", Field: "type"},
	}, st.Details.Causes)
}
