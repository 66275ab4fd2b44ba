package cel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDeviceSelectorError compiles selectors against the typed device:
// its fields and their types as the real server declares them.
func TestDeviceSelectorError(t *testing.T) {
	for _, ok := range []string{
		`device.driver == "gpu.example.com"`,
		`device.attributes["gpu.example.com"].model == "a100"`,
		`device.attributes["gpu.example.com"].model`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0`,
		`device.allowMultipleAllocations`,
		`cel.bind(a, device.attributes["x"], a.y > 1)`,
	} {
		msg, tooComplex := DeviceSelectorError(ok)
		assert.Empty(t, msg, ok)
		assert.False(t, tooComplex, ok)
	}
	invalid := func(expr string) string { msg, _ := DeviceSelectorError(expr); return msg }
	assert.Equal(t, "compilation failed: ERROR: <input>:1:7: undefined field 'nosuchfield'\n | device.nosuchfield\n | ......^", invalid("device.nosuchfield"))
	assert.Equal(t, "must evaluate to bool or the unknown type, not string", invalid("device.driver"))
	assert.Contains(t, invalid(`device.capacity["a"]["b"] > 1`), "found no matching overload for '_>_' applied to '(kubernetes.Quantity, int)'")
}
