package cel

import (
	celchecker "github.com/google/cel-go/checker"
)

// deviceSelectorCostLimit is the real server's limit on a device
// selector's estimated cost.
const deviceSelectorCostLimit = 1_000_000

// deviceSize is one node of the sizes the real server declares for the
// device a selector reads: the most elements (a string's bytes, a map's
// entries) a value there has, and what is below it.
type deviceSize struct {
	max          uint64
	fields       map[string]*deviceSize
	keys, values *deviceSize
	// anyKey: a field access by any name reads values (an attribute
	// map, whose entries are named by the device's driver).
	anyKey bool
}

// deviceSizes are the real declarations' bounds: a driver name of 63
// bytes, at most 32 attribute and capacity domains (names of 63 bytes)
// with at most 32 entries each (names of 32 bytes), an attribute value
// of 64 elements.
var deviceSizes = func() *deviceSize {
	domain, id := &deviceSize{max: 63}, &deviceSize{max: 32}
	attribute := &deviceSize{max: 64}
	inner := &deviceSize{max: 32, keys: id, values: attribute, anyKey: true}
	capacityInner := &deviceSize{max: 32, keys: id, values: &deviceSize{}}
	return &deviceSize{fields: map[string]*deviceSize{
		"driver":                   {max: 63},
		"allowMultipleAllocations": {max: 1},
		"attributes":               {max: 32, keys: domain, values: inner},
		"capacity":                 {max: 32, keys: domain, values: capacityInner},
	}}
}()

// devicePathSize is the size at a path from device ("device",
// "attributes", "@values"), nil where the declarations say nothing.
func devicePathSize(path []string) *celchecker.SizeEstimate {
	if len(path) == 0 || path[0] != "device" {
		return nil
	}
	n := deviceSizes
	for _, p := range path[1:] {
		switch {
		case p == "@items" || p == "@values":
			n = n.values
		case p == "@keys":
			n = n.keys
		case n.fields[p] != nil:
			n = n.fields[p]
		case n.anyKey:
			n = n.values
		default:
			return nil
		}
		if n == nil {
			return nil
		}
	}
	return &celchecker.SizeEstimate{Min: 0, Max: n.max}
}
