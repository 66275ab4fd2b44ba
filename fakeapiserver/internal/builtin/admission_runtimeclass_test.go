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
	pod := Kind{Version: "v1", Kind: "Pod"}
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
		obj := parse(t, `{"spec":{"containers":[{"name":"c","image":"i"}],`+tc.spec+`}}`)
		err := w.Create(pod, &meta.ObjectMeta{Name: "p", Namespace: "default", UID: "u"}, &obj)
		if tc.refused != "" {
			var fb *Forbidden
			require.True(t, errors.As(err, &fb), "%s: %v", tc.spec, err)
			assert.Equal(t, tc.refused, fb.Message, tc.spec)
			continue
		}
		require.NoError(t, err, tc.spec)
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
