package cel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDeviceSelectorCost: selectors refused or accepted for their
// estimated cost as kube-apiserver v1.37.2 refuses and accepts them
// (each row sent to it as a DeviceClass), among them pairs on either side
// of the limit: nested iterations over the attribute and capacity maps,
// string functions priced by the declared name lengths, and lookups by
// a domain chosen at run time.
func TestDeviceSelectorCost(t *testing.T) {
	for expr, refused := range map[string]bool{
		`device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, true)))`:                                               false,
		`device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, device.attributes.all(g, true))))`:                     true,
		`device.attributes.all(d, device.attributes.all(e, d.matches(e)))`:                                                                 false,
		`device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, d.matches(e) && e.matches(f))))`:                       true,
		`device.attributes.all(d, device.attributes[d].all(a, device.attributes.all(e, device.attributes[e].all(b, a == b))))`:             true,
		`device.attributes["x"].all(a, device.attributes["y"].all(b, device.attributes["z"].all(c, device.attributes["w"].all(e, true))))`: true,
		`device.capacity.all(d, device.capacity[d].all(a, device.capacity.all(e, device.capacity[e].all(b, true))))`:                       true,
		`device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, d + e == f)))`:                                         false,
		`device.attributes.all(d, device.attributes[d].all(e, device.attributes.all(f, d + e == f)))`:                                      false,
		`device.attributes.all(d, device.attributes[d].all(e, device.attributes.all(f, d.contains(e))))`:                                   true,
		`device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, d.contains(e))))`:                                      true,
		`device.attributes.all(d, device.attributes.all(e, device.attributes.all(f, device.driver.matches(d + e))))`:                       true,
	} {
		msg, tooComplex := DeviceSelectorError(expr)
		assert.Empty(t, msg, expr)
		assert.Equal(t, refused, tooComplex, expr)
	}
}
