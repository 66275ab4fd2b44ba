package meta_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubecache/kubecache/meta"
)

func TestIsNil(t *testing.T) {
	var nilPod *Pod
	var nilObject meta.Object = nilPod
	var nilFunc func()
	for _, tc := range []struct {
		name string
		v    any
		want bool
	}{
		{"untyped nil", nil, true},
		{"nil pointer", nilPod, true},
		{"nil pointer behind meta.Object", nilObject, true},
		{"nil map", map[string]int(nil), true},
		{"nil slice", []int(nil), true},
		{"nil func", nilFunc, true},
		{"nil channel", (chan int)(nil), true},
		{"pointer", &Pod{}, false},
		{"empty map", map[string]int{}, false},
		{"func", func() {}, false},
		{"struct value", Pod{}, false},
		{"zero int", 0, false},
		{"empty string", "", false},
	} {
		assert.Equal(t, tc.want, meta.IsNil(tc.v), "IsNil(%s)", tc.name)
	}
}
