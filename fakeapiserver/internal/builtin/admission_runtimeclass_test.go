package builtin

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/meta"
)

// TestRuntimeClassAdmission checks the RuntimeClass plugin on new Pods
// against classes that exist, with the real server's answers: a class's
// overhead is copied into the pod (an equal quantity is replaced by the
// class's), a different one is refused, and a class without overhead
// refuses one.
func TestRuntimeClassAdmission(t *testing.T) {
	podFixed := parse(t, `{"cpu":"250m"}`)
	lookup := func(name string) (RuntimeClass, bool) {
		switch name {
		case "rc":
			return RuntimeClass{HasOverhead: true, Overhead: &podFixed}, true
		case "plain":
			return RuntimeClass{}, true
		}
		return RuntimeClass{}, false
	}
	w := Write{Env: Env{RuntimeClass: lookup}, DryRun: true}
	for _, tc := range []struct {
		spec, overhead, refused string
	}{
		{spec: `"runtimeClassName":"rc"`, overhead: `{"cpu":"250m"}`},
		{spec: `"runtimeClassName":"rc","overhead":{"cpu":"0.25"}`, overhead: `{"cpu":"250m"}`},
		{spec: `"runtimeClassName":"rc","overhead":{"cpu":"1"}`, refused: "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"},
		{spec: `"runtimeClassName":"plain","overhead":{"cpu":"1"}`, refused: "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"},
		{spec: `"runtimeClassName":"plain"`},
		{spec: `"runtimeClassName":"nope"`, refused: `pod rejected: RuntimeClass "nope" not found`},
	} {
		obj, ok := createPodSpec(t, w, tc.spec, tc.refused)
		if !ok {
			continue
		}
		got := "null"
		if oh := obj.Get("spec").Get("overhead"); oh != nil {
			got = string(jsonv.Marshal(*oh))
		}
		if tc.overhead == "" {
			tc.overhead = "null"
		}
		assert.JSONEq(t, tc.overhead, got, tc.spec)
	}
}

// TestRuntimeClassScheduling checks the plugin's merge of a class's
// scheduling into new Pods against the real server's answers (a dry-run
// create with the class below): its node selector is added to the pod's
// and a key the pod gives another value is refused, and its tolerations
// are merged after the pod's and the default ones, a toleration that
// another covers dropped.
func TestRuntimeClassScheduling(t *testing.T) {
	ns := parse(t, `{"pool":"gpu","zone":"a"}`)
	tols := parse(t, `[{"key":"gpu","operator":"Exists","effect":"NoSchedule"},
		{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute"}]`)
	lookup := func(name string) (RuntimeClass, bool) {
		return RuntimeClass{NodeSelector: &ns, Tolerations: tols.Arr}, name == "sched"
	}
	w := Write{Env: Env{RuntimeClass: lookup}, DryRun: true}
	merged := `[{"effect":"NoExecute","key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":300},
		{"effect":"NoSchedule","key":"gpu","operator":"Exists"},{"effect":"NoExecute","key":"node.kubernetes.io/not-ready","operator":"Exists"}]`
	for _, tc := range []struct {
		spec, nodeSelector, tolerations, refused string
	}{
		{spec: `"runtimeClassName":"sched"`, nodeSelector: `{"pool":"gpu","zone":"a"}`, tolerations: merged},
		{spec: `"runtimeClassName":"sched","nodeSelector":{"zone":"b"}`,
			refused: "conflict: runtimeClass.scheduling.nodeSelector[zone] = a; pod.spec.nodeSelector[zone] = b"},
		{spec: `"runtimeClassName":"sched","nodeSelector":{"disk":"ssd"},
			"tolerations":[{"key":"gpu","operator":"Equal","value":"v","effect":"NoSchedule"},{"operator":"Exists"}]`,
			nodeSelector: `{"disk":"ssd","pool":"gpu","zone":"a"}`, tolerations: `[{"operator":"Exists"}]`},
		{spec: `"runtimeClassName":"sched","tolerations":[{"key":"gpu","operator":"Equal","value":"v","effect":"NoSchedule"},
			{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":20}]`,
			nodeSelector: `{"pool":"gpu","zone":"a"}`, tolerations: merged},
	} {
		obj, ok := createPodSpec(t, w, tc.spec, tc.refused)
		if !ok {
			continue
		}
		spec := obj.Get("spec")
		assert.JSONEq(t, tc.nodeSelector, string(jsonv.Marshal(*spec.Get("nodeSelector"))), tc.spec)
		assert.JSONEq(t, tc.tolerations, string(jsonv.Marshal(*spec.Get("tolerations"))), tc.spec)
	}
}

// createPodSpec creates, through w, a Pod whose spec has one container
// and the members in spec. With refused set, the create must be refused
// with that 403 message, and ok is false; otherwise it must succeed and
// obj is the created object.
func createPodSpec(t *testing.T, w Write, spec, refused string) (obj jsonv.Value, ok bool) {
	t.Helper()
	obj = parse(t, `{"spec":{"containers":[{"name":"c","image":"i"}],`+spec+`}}`)
	err := w.Create(Kind{Version: "v1", Kind: "Pod"}, &meta.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}, &obj)
	if refused != "" {
		var fb *Forbidden
		require.True(t, errors.As(err, &fb), "%s: %v", spec, err)
		assert.Equal(t, refused, fb.Message, spec)
		return obj, false
	}
	require.NoError(t, err, spec)
	return obj, true
}
