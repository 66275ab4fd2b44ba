package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// validateJSON validates body, an object of kind in group without its
// metadata, named name.
func validateJSON(t *testing.T, group, kind, name, body string) []string {
	t.Helper()
	res, err := jsonv.Parse([]byte(body))
	require.NoError(t, err)
	obj := res.Value
	var out []string
	for _, e := range Validate(group, kind, &meta.ObjectMeta{Name: name}, &obj) {
		out = append(out, e.String())
	}
	return out
}

// TestValidateClusterKinds checks the rules of Namespaces, Nodes and
// Endpoints the real validators have, with their wording.
func TestValidateClusterKinds(t *testing.T) {
	assert.ElementsMatch(t, []string{
		`spec.finalizers: Invalid value: "bad": name is neither a standard finalizer name nor is it fully qualified`,
	}, validateJSON(t, "", "Namespace", "ns", `{"spec":{"finalizers":["kubernetes","bad","example.com/ok"]}}`))

	assert.ElementsMatch(t, []string{
		`metadata.taints[1].effect: Required value`,
		`metadata.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`,
		`metadata.taints[3]: Duplicate value: {"Key":"k","Value":"v","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`,
	}, validateJSON(t, "", "Node", "n", `{"spec":{"taints":[{"key":"k","effect":"NoSchedule"},{"key":"k2"},{"key":"k3","effect":"Sometimes"},{"key":"k","value":"v","effect":"NoSchedule"}]}}`))

	assert.ElementsMatch(t, []string{
		`spec.podCIDRs: Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family`,
	}, validateJSON(t, "", "Node", "n", `{"spec":{"podCIDRs":["10.0.0.0/24","10.1.0.0/24"]}}`))
	assert.Empty(t, validateJSON(t, "", "Node", "n", `{"spec":{"podCIDRs":["10.0.0.0/24","fd00::/64"]}}`))

	assert.ElementsMatch(t, []string{
		`status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0`,
		`status.capacity.pods: Invalid value: "1500m": must be an integer`,
	}, validateJSON(t, "", "Node", "n", `{"status":{"capacity":{"cpu":"-1","pods":"1500m","memory":"1Gi"}}}`))

	assert.ElementsMatch(t, []string{
		"subsets[0]: Required value: must specify `addresses` or `notReadyAddresses`",
		`subsets[1].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
		`subsets[1].addresses[1].ip: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
		`subsets[1].ports[0].name: Required value`,
		`subsets[1].ports[1].port: Invalid value: 70000: must be between 1 and 65535, inclusive`,
	}, validateJSON(t, "", "Endpoints", "e", `{"subsets":[{},{"addresses":[{"ip":"127.0.0.1"},{"ip":"169.254.1.1"},{"ip":"10.0.0.1"}],"ports":[{"port":80,"protocol":"TCP"},{"name":"b","port":70000,"protocol":"TCP"}]}]}`))
}

// TestValidateNodeUpdate checks what a Node update may not change.
func TestValidateNodeUpdate(t *testing.T) {
	update := func(oldBody, newBody string) []string {
		o, err := jsonv.Parse([]byte(oldBody))
		require.NoError(t, err)
		n, err := jsonv.Parse([]byte(newBody))
		require.NoError(t, err)
		var out []string
		for _, e := range ValidateUpdate("", "Node", &meta.ObjectMeta{Name: "n"}, &n.Value, &o.Value) {
			out = append(out, e.String())
		}
		return out
	}
	assert.Equal(t, []string{`spec.providerID: Invalid value: null: field cannot be modified once set`},
		update(`{"spec":{"providerID":"a"}}`, `{"spec":{"providerID":"b"}}`))
	assert.Equal(t, []string{`spec.providerID: Invalid value: null: field cannot be cleared once set`},
		update(`{"spec":{"providerID":"a"}}`, `{"spec":{}}`))
	assert.Empty(t, update(`{"spec":{}}`, `{"spec":{"providerID":"a","podCIDRs":["10.0.0.0/24"]}}`))
	assert.Equal(t, []string{`spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid`},
		update(`{"spec":{"podCIDRs":["10.0.0.0/24"]}}`, `{"spec":{"podCIDRs":["10.1.0.0/24"]}}`))
}
