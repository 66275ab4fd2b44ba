package crd

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// libsCRD's rules call the Kubernetes quantity, semver and format
// libraries; its messages show what validate() reports.
var libsCRD = e2eCRD("e2elibs", "E2ELib", `
            properties:
              q:
                type: string
                maxLength: 20
                x-kubernetes-validations:
                - rule: "isQuantity(self) && quantity(self).isGreaterThan(quantity('1')) && quantity(self).isLessThan(quantity('2Gi')) && quantity(self).compareTo(quantity('1500m')) == 0 && quantity(self) == quantity('1.5') && sign(quantity(self)) == 1 && !quantity(self).isInteger() && quantity(self).sub(2).asApproximateFloat() == -0.5 && quantity(self).add(1).isGreaterThan(quantity('2')) && !isQuantity('1x') && quantity('1k').add(2).asInteger() == 1002"
                  message: quantity parts
                - rule: "quantity(self).add(quantity('500m')).asInteger() == 2"
              v:
                type: string
                maxLength: 40
                x-kubernetes-validations:
                - rule: "isSemver(self) && semver(self).major() == 1 && semver(self).minor() == 2 && semver(self).isLessThan(semver('1.2.3')) && semver(self).isGreaterThan(semver('1.2.3-alpha.1')) && semver('1.2.3+b') == semver('1.2.3') && semver('v01.2', true) == semver('1.2.0') && isSemver('v1', true) && !isSemver('v1') && semver('1.0.0-2').compareTo(semver('1.0.0-a')) == -1"
                  message: semver parts
                - rule: "semver(self).patch() >= 0"
              nm:
                type: string
                maxLength: 80
                x-kubernetes-validations:
                - rule: "!format.dns1123Label().validate(self).hasValue()"
                  messageExpression: "format.dns1123Label().validate(self).orValue(['ok'])[0]"
                - rule: "format.named('dns1035Label').hasValue() && !format.named('nope').hasValue() && format.dns1123Subdomain().validate('a.b').orValue([]) == []"
                  message: named
                - {rule: "false", messageExpression: "'qualifiedName: ' + format.qualifiedName().validate(self).orValue(['ok'])[0]"}
                - {rule: "false", messageExpression: "'labelValue: ' + format.labelValue().validate(self).orValue(['ok'])[0]"}
                - {rule: "false", messageExpression: "'uri: ' + format.uri().validate(self).orValue(['ok'])[0]"}
                - {rule: "false", messageExpression: "'uuid: ' + format.uuid().validate(self).orValue(['ok'])[0]"}
                - {rule: "false", messageExpression: "'date: ' + format.date().validate(self).orValue(['ok'])[0]"}
                - {rule: "false", messageExpression: "'prefix: ' + format.dns1123LabelPrefix().validate(self).orValue(['ok'])[0]"}`)

// TestCustomResourceRuleQuantitySemverFormat: the quantity, semver and
// format libraries answer as the real server's, including quantities
// that are whole numbers but not integers to it ("2000m") and the
// libraries' parse errors.
func TestCustomResourceRuleQuantitySemverFormat(t *testing.T) {
	c := newClient(t)
	const libs = "/apis/e2e.kubecache.io/v1/namespaces/default/e2elibs"
	installCRD(t, c, libsCRD, libs)
	post := func(spec string) []string {
		return c.do(http.MethodPost, libs+"?dryRun=All", `{"apiVersion":"e2e.kubecache.io/v1","kind":"E2ELib","metadata":{"name":"a"},"spec":`+spec+`}`, "").causes(t)
	}
	assert.Equal(t, []string{
		"FieldValueInvalid spec.nm: Invalid value: \"ok\": date: invalid date",
		"FieldValueInvalid spec.nm: Invalid value: \"ok\": labelValue: ok",
		"FieldValueInvalid spec.nm: Invalid value: \"ok\": prefix: ok",
		"FieldValueInvalid spec.nm: Invalid value: \"ok\": qualifiedName: ok",
		"FieldValueInvalid spec.nm: Invalid value: \"ok\": uri: parse \"ok\": invalid URI for request",
		"FieldValueInvalid spec.nm: Invalid value: \"ok\": uuid: does not match the UUID format",
		"FieldValueInvalid spec.q: Invalid value: \"string\": cannot convert value to integer evaluating rule: quantity(self).add(quantity('500m')).asInteger() == 2",
		"FieldValueInvalid spec.v: Invalid value: \"1.2.2\": semver parts",
	}, post(`{"q":"1.5","v":"1.2.2","nm":"ok"}`))
	assert.Equal(t, []string{
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": date: invalid date",
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": labelValue: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": prefix: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": qualifiedName: prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": uri: parse \"Bad_Name-/x\": invalid URI for request",
		"FieldValueInvalid spec.nm: Invalid value: \"Bad_Name-/x\": uuid: does not match the UUID format",
		"FieldValueInvalid spec.q: Invalid value: \"3x\": quantity parts",
		"FieldValueInvalid spec.q: Invalid value: \"string\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: quantity(self).add(quantity('500m')).asInteger() == 2",
		"FieldValueInvalid spec.v: Invalid value: \"1.02.3-\": semver parts",
		"FieldValueInvalid spec.v: Invalid value: \"string\": Minor number must not contain leading zeroes \"02\" evaluating rule: semver(self).patch() >= 0",
	}, post(`{"q":"3x","v":"1.02.3-","nm":"Bad_Name-/x"}`))
	assert.Equal(t, []string{
		"FieldValueInvalid spec.nm: Invalid value: \"-\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		"FieldValueInvalid spec.nm: Invalid value: \"-\": date: invalid date",
		"FieldValueInvalid spec.nm: Invalid value: \"-\": labelValue: a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
		"FieldValueInvalid spec.nm: Invalid value: \"-\": prefix: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		"FieldValueInvalid spec.nm: Invalid value: \"-\": qualifiedName: name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
		"FieldValueInvalid spec.nm: Invalid value: \"-\": uri: parse \"-\": invalid URI for request",
		"FieldValueInvalid spec.nm: Invalid value: \"-\": uuid: does not match the UUID format",
		"FieldValueInvalid spec.q: Invalid value: \"2\": quantity parts",
		"FieldValueInvalid spec.q: Invalid value: \"string\": cannot convert value to integer evaluating rule: quantity(self).add(quantity('500m')).asInteger() == 2",
		"FieldValueInvalid spec.v: Invalid value: \"string\": No Major.Minor.Patch elements found evaluating rule: semver(self).patch() >= 0",
		"FieldValueInvalid spec.v: Invalid value: \"v1.2\": semver parts",
	}, post(`{"q":"2","v":"v1.2","nm":"-"}`))
}

// TestCustomResourceMessageExpressionTooExpensive: a messageExpression
// whose estimated cost is over the limit refuses the CRD; indexing a list
// of unknown size is priced as the real server prices it (the size of
// self), joining one is not bounded.
func TestCustomResourceMessageExpressionTooExpensive(t *testing.T) {
	c := newClient(t)
	crd := func(message string) string {
		return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"e2emsgs.e2e.kubecache.io"},"spec":{"group":"e2e.kubecache.io","names":{"plural":"e2emsgs","kind":"E2EMsg"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"string","maxLength":20,"x-kubernetes-validations":[{"rule":"false","messageExpression":` + message + `}]}}}}}]}}`
	}
	r := c.do(http.MethodPost, crdPath+"?dryRun=All", crd(`"'a' + self.split('x')[0]"`), "")
	assert.Equal(t, http.StatusCreated, r.code, "%s", r.body)
	const path = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression"
	const budget = " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
	assert.Equal(t, []string{
		"FieldValueForbidden " + path + ": Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
		"FieldValueForbidden " + path + ": Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x" + budget,
		"FieldValueForbidden spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x" + budget,
	}, c.do(http.MethodPost, crdPath+"?dryRun=All", crd(`"format.dns1123Label().validate(self).value().join('; ')"`), "").causes(t))
}
