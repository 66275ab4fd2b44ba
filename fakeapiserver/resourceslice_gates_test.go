package fakeapiserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResourceSliceDropsDisabledFields creates a ResourceSlice with the
// fields whose gates are off in 1.37 (a partition type attribute, node
// operations to skip, list attributes, node-allocatable resources,
// compatibility groups): the real server drops them, and the stored
// spec is the one it returns.
func TestResourceSliceDropsDisabledFields(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.post("/apis/resource.k8s.io/v1/resourceslices", `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"drop"},
	 "spec":{"driver":"dra.example.com","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n1","partitionTypeAttribute":"dra.example.com/type","skipNodeOperations":["NodePrepareResources"],
	 "devices":[{"name":"a","attributes":{"s":{"string":"x","strings":["y"]}},"nodeAllocatableResources":{"cpu":{"mapping":{"deviceMultiplier":"1"}}},
	  "consumesCounters":[{"counterSet":"s","counters":{"c":{"value":"1"}},"compatibilityGroups":["g"]}]}]}}`)
	require.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	spec, err := json.Marshal(r.object(t)["spec"])
	require.NoError(t, err)
	assert.JSONEq(t, `{"driver":"dra.example.com","pool":{"name":"p","generation":0,"resourceSliceCount":1},"nodeName":"n1",
	 "devices":[{"name":"a","attributes":{"s":{"string":"x"}},"consumesCounters":[{"counterSet":"s","counters":{"c":{"value":"1"}}}]}]}`, string(spec))
}
