package builtin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestValidateJobPolicies checks a Job's pod failure, success and
// replacement policies and a container's resize policy.
func TestValidateJobPolicies(t *testing.T) {
	const tmpl = `"template":{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","containers":[{"name":"c","image":"x","imagePullPolicy":"Always","terminationMessagePolicy":"File"}]}}`
	assert.ElementsMatch(t, []string{
		`spec.podFailurePolicy.rules[0].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex to be set`,
		`spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator`,
		`spec.podFailurePolicy.rules[0].onExitCodes.values[2]: Duplicate value: 3`,
		`spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,3,3,1]: must be ordered`,
		`spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required`,
		`spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported values: "Failed"`,
	}, validateJSON(t, "batch", "Job", "j", `{"spec":{"podReplacementPolicy":"TerminatingOrFailed","podFailurePolicy":{"rules":[{"action":"FailIndex","onExitCodes":{"operator":"In","values":[0,3,3,1]}},{"action":"Count"}]},`+tmpl+`}}`))

	assert.ElementsMatch(t, []string{
		`spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified`,
		`spec.successPolicy.rules[1].succeededIndexes: Invalid value: "3-2": error parsing succeededIndexes: non-increasing order, previous: 3, current: 2`,
		`spec.successPolicy.rules[2].succeededCount: Invalid value: 3: must be less than or equal to 2 (the number of indexes in the specified succeededIndexes field)`,
		`spec.successPolicy.rules[3].succeededCount: Invalid value: 9: must be less than or equal to 5 (the number of specified completions)`,
	}, validateJSON(t, "batch", "Job", "j", `{"spec":{"completionMode":"Indexed","completions":5,"parallelism":1,"successPolicy":{"rules":[{},{"succeededIndexes":"3-2"},{"succeededIndexes":"0-1","succeededCount":3},{"succeededCount":9}]},`+tmpl+`}}`))

	assert.Equal(t, []string{`spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":null,"SucceededCount":1}]}: requires indexed completion mode`},
		validateJSON(t, "batch", "Job", "j", `{"spec":{"completionMode":"NonIndexed","successPolicy":{"rules":[{"succeededCount":1}]},`+tmpl+`}}`))

	assert.ElementsMatch(t, []string{
		`spec.containers[0].resizePolicy: Unsupported value: "Sometimes": supported values: "NotRequired", "RestartContainer"`,
		`spec.containers[0].resizePolicy: Invalid value: "Sometimes": must be 'NotRequired' when pod ` + "`restartPolicy`" + ` is 'Never'`,
		`spec.containers[0].resizePolicy[1]: Duplicate value: "cpu"`,
	}, validateJSON(t, "", "Pod", "p", `{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","containers":[{"name":"c","image":"x","imagePullPolicy":"Always","terminationMessagePolicy":"File","resizePolicy":[{"resourceName":"cpu","restartPolicy":"Sometimes"},{"resourceName":"cpu","restartPolicy":"NotRequired"}]}]}}`))
	assert.Equal(t, []string{`spec.ephemeralContainers: Forbidden: cannot be set on create`},
		validateJSON(t, "", "Pod", "p", `{"spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","containers":[{"name":"c","image":"x","imagePullPolicy":"Always","terminationMessagePolicy":"File"}],"ephemeralContainers":[{"name":"e"}]}}`))
}
