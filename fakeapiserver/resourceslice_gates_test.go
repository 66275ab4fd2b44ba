package fakeapiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

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

const sliceWithConsumableCapacity = `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"cap"},
 "spec":{"driver":"dra.example.com","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n1",
  "devices":[{"name":"a","allowMultipleAllocations":%s,"capacity":{"mem":{"value":"%s","requestPolicy":{"default":"1","validRange":{"min":"%s"}}}}}]}}`

// TestResourceSliceUpdateSkipsUnchangedCapacity updates a slice as the
// real server checks it: a device's capacity equal to the stored one (a
// quantity by value) is not checked again, so turning off multiple
// allocations keeps its request policy; a changed capacity is checked;
// the pool name, driver and node name are immutable.
func TestResourceSliceUpdateSkipsUnchangedCapacity(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const path = "/apis/resource.k8s.io/v1/resourceslices"
	c.mustCreate(path, fmt.Sprintf(sliceWithConsumableCapacity, "true", "10", "1"))

	r := c.do(http.MethodPut, path+"/cap", fmt.Sprintf(sliceWithConsumableCapacity, "false", "10", "1000m"))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)

	r = c.do(http.MethodPut, path+"/cap", fmt.Sprintf(sliceWithConsumableCapacity, "false", "20", "1"))
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ResourceSlice.resource.k8s.io "cap" is invalid: spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations must be true`, r.status(t).Message)

	moved := strings.NewReplacer(`"dra.example.com"`, `"dra2.example.com"`, `"name":"p"`, `"name":"p2"`, `"n1"`, `"n2"`).
		Replace(fmt.Sprintf(sliceWithConsumableCapacity, "false", "10", "1"))
	r = c.do(http.MethodPut, path+"/cap", moved)
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `ResourceSlice.resource.k8s.io "cap" is invalid: [spec.pool.name: Invalid value: "p2": field is immutable, `+
		`spec.driver: Invalid value: "dra2.example.com": field is immutable, spec.nodeName: Invalid value: "n2": field is immutable]`, r.status(t).Message)
}

// TestDeviceTaintTimeAdded creates a slice and a DeviceTaintRule whose
// taints leave timeAdded out: the real defaulter sets the time of the
// write, which the creating manager owns; a time given stays.
func TestDeviceTaintTimeAdded(t *testing.T) {
	_, c := newTestServer(t, Options{Clock: NewFakeClock(time.Date(2026, 12, 3, 18, 0, 0, 700_000_000, time.UTC))})
	const now = "2026-12-03T18:00:00Z"
	slice := c.mustCreate("/apis/resource.k8s.io/v1/resourceslices", `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"t"},
	 "spec":{"driver":"dra.example.com","pool":{"name":"p","resourceSliceCount":1},"nodeName":"n1",
	  "devices":[{"name":"a","taints":[{"key":"k","effect":"NoSchedule"},{"key":"l","effect":"NoSchedule","timeAdded":"2026-01-01T00:00:00Z"}]}]}}`)
	taints := slice["spec"].(map[string]any)["devices"].([]any)[0].(map[string]any)["taints"].([]any)
	assert.Equal(t, now, taints[0].(map[string]any)["timeAdded"])
	assert.Equal(t, "2026-01-01T00:00:00Z", taints[1].(map[string]any)["timeAdded"])

	rule := c.mustCreate("/apis/resource.k8s.io/v1/devicetaintrules", `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"r"},
	 "spec":{"deviceSelector":{"driver":"dra.example.com"},"taint":{"key":"k","effect":"NoSchedule"}}}`)
	assert.Equal(t, now, rule["spec"].(map[string]any)["taint"].(map[string]any)["timeAdded"])
	assert.JSONEq(t, `{"f:spec":{"f:deviceSelector":{".":{},"f:driver":{}},"f:taint":{"f:effect":{},"f:key":{},"f:timeAdded":{}}}}`, fieldsV1(t, rule))
}

// TestDeviceTaintRuleEffectChange updates a DeviceTaintRule as the real
// strategy does: a new effect with the stored timeAdded gets the time of
// the update, a new effect with a time of its own keeps it, and each
// change of the spec raises the generation; an update needs a
// resourceVersion.
func TestDeviceTaintRuleEffectChange(t *testing.T) {
	clk := NewFakeClock(time.Date(2026, 12, 3, 18, 0, 0, 0, time.UTC))
	_, c := newTestServer(t, Options{Clock: clk})
	const path = "/apis/resource.k8s.io/v1/devicetaintrules"
	const rule = `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"r"%s},
	 "spec":{"deviceSelector":{"driver":"dra.example.com"},"taint":{"key":"k","effect":"%s","timeAdded":"%s"}}}`
	created := c.mustCreate(path, fmt.Sprintf(rule, "", "NoSchedule", "2026-01-01T00:00:00Z"))
	assert.EqualValues(t, 1, created["metadata"].(map[string]any)["generation"])

	r := c.do(http.MethodPut, path+"/r", fmt.Sprintf(rule, "", "NoExecute", "2026-01-01T00:00:00Z"))
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	assert.Equal(t, `devicetaintrules.resource.k8s.io "r" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`, r.status(t).Message)

	clk.Step(90 * time.Second)
	rv := func(obj map[string]any) string {
		return fmt.Sprintf(`,"resourceVersion":%q`, obj["metadata"].(map[string]any)["resourceVersion"])
	}
	r = c.do(http.MethodPut, path+"/r", fmt.Sprintf(rule, rv(created), "NoExecute", "2026-01-01T00:00:00Z"))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	bumped := r.object(t)
	assert.Equal(t, "2026-12-03T18:01:30Z", bumped["spec"].(map[string]any)["taint"].(map[string]any)["timeAdded"])
	assert.EqualValues(t, 2, bumped["metadata"].(map[string]any)["generation"])

	r = c.do(http.MethodPut, path+"/r", fmt.Sprintf(rule, rv(bumped), "None", "2026-02-01T00:00:00Z"))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	assert.Equal(t, "2026-02-01T00:00:00Z", r.object(t)["spec"].(map[string]any)["taint"].(map[string]any)["timeAdded"])
}
