package reliability_test

import "github.com/kubecache/kubecache/selector"

// selectorNone selects every object.
var selectorNone selector.Fields
