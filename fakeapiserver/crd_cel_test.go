package fakeapiserver

import (
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ruleCRD's x-kubernetes-validations cover messages, messageExpression,
// reason and fieldPath, a transition rule and the Kubernetes list and
// string functions; the expected answers are a real kube-apiserver
// v1.37.2's.
var ruleCRD = exampleCRD("rules", "Rule", `
            x-kubernetes-validations:
            - rule: "self.min <= self.max"
              message: "min must not exceed max"
            - rule: "self.min < 100"
              messageExpression: "'min is too large'"
              reason: FieldValueForbidden
              fieldPath: ".min"
            - rule: "self.max >= oldSelf.max"
              message: "max may not shrink"
            properties:
              min: {type: integer}
              max: {type: integer}
              name:
                type: string
                maxLength: 10
                x-kubernetes-validations:
                - rule: "self.matches('^[a-z]+$')"
              tags:
                type: array
                maxItems: 5
                items: {type: string, maxLength: 10}
                x-kubernetes-validations:
                - rule: "self.isSorted()"
                  message: unsorted
              im:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: immutable
`)

const rulePath = "/apis/example.net/v1/namespaces/default/rules"

func rule(name, spec string) string {
	return `{"apiVersion":"example.net/v1","kind":"Rule","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

func TestCustomResourceCELRules(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustCreate(crdPath, yamlToJSON(t, ruleCRD))

	r := c.post(rulePath, rule("r1", `{"min":5,"max":3,"name":"A","tags":["b","a"],"im":"x"}`))
	assert.Equal(t, []string{
		`FieldValueInvalid spec.name: Invalid value: "A": failed rule: self.matches('^[a-z]+$')`,
		`FieldValueInvalid spec.tags: Invalid value: unsorted`,
		`FieldValueInvalid spec: Invalid value: min must not exceed max`,
	}, causes(t, r))

	r = c.post(rulePath, rule("r2", `{"min":200,"max":300,"im":"x"}`))
	assert.Equal(t, []string{`FieldValueForbidden spec.min: Forbidden: min is too large`}, causes(t, r))
	assert.Equal(t, `Rule.example.net "r2" is invalid: spec.min: Forbidden: min is too large`, r.status(t).Message)

	// Transition rules run on update only.
	c.mustCreate(rulePath, rule("r3", `{"min":1,"max":3,"im":"x","tags":["a","b"]}`))
	r = c.do(http.MethodPatch, rulePath+"/r3", `{"spec":{"max":2,"im":"y"}}`, "Content-Type", "application/merge-patch+json")
	assert.Equal(t, []string{
		`FieldValueInvalid spec.im: Invalid value: "y": immutable`,
		`FieldValueInvalid spec: Invalid value: max may not shrink`,
	}, causes(t, r))
	r = c.do(http.MethodPatch, rulePath+"/r3", `{"spec":{"max":4}}`, "Content-Type", "application/merge-patch+json")
	assert.Equal(t, http.StatusOK, r.code, "%s", r.body)

	// An object that fails its schema does not get its rules run.
	r = c.post(rulePath, rule("r5", `{"min":1,"max":2,"name":"abcdefghijklmnop"}`))
	assert.Equal(t, []string{
		`FieldValueInvalid <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
		`FieldValueTooLong spec.name: Too long: may not be more than 10 bytes`,
	}, causes(t, r))

	// A rule that reads an absent field fails with the evaluation error.
	r = c.post(rulePath, rule("r4", `{"name":"abc"}`))
	assert.Equal(t, []string{
		`FieldValueInvalid spec: Invalid value: "object": no such key: min evaluating rule: min must not exceed max`,
		`FieldValueInvalid spec: Invalid value: "object": no such key: min evaluating rule: self.min < 100`,
	}, causes(t, r))
}

func TestCustomResourceCELCompileErrors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	crd := exampleCRD("brokens", "Broken", `
            x-kubernetes-validations:
            - rule: "self.min <"
            - rule: "self.nosuch == 1"
            - rule: "self.min"
            properties:
              min: {type: integer}
`)
	r := c.post(crdPath, yamlToJSON(t, crd))
	require.Equal(t, http.StatusUnprocessableEntity, r.code, "%s", r.body)
	st := r.status(t)
	var got []string
	for _, cause := range st.Details.Causes {
		got = append(got, cause.Field+": "+cause.Message)
	}
	p := "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations"
	assert.Equal(t, []string{
		p + `[0].rule: Invalid value: {"Rule":"self.min \u003c","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}
 | self.min <
 | ..........^`,
		p + `[1].rule: Invalid value: {"Rule":"self.nosuch == 1","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:5: undefined field 'nosuch'
 | self.nosuch == 1
 | ....^`,
		p + `[2].rule: Invalid value: {"Rule":"self.min","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: cel expression must evaluate to a bool`,
	}, got)
	assert.Equal(t, http.StatusNotFound, c.get("/apis/example.net/v1/namespaces/default/brokens").code)
}

// TestCELStaysOffTheClientPath checks that cel-go, which only the fake
// server needs, is not a dependency of the client packages.
func TestCELStaysOffTheClientPath(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list dependencies with")
	}
	cmd := exec.Command("go", "list", "-deps", "./informer/...", "./reflector/...", "./rest/...")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	require.NoError(t, err)
	require.Contains(t, string(out), "github.com/kubecache/kubecache/rest")
	assert.NotContains(t, string(out), "cel-go")
	assert.NotContains(t, string(out), "cel.dev")
	assert.False(t, strings.Contains(string(out), "kubecache/fakeapiserver"), "the client packages do not import the fake server")
}
