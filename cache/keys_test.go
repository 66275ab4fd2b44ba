package cache_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/cache"
)

func TestMetaNamespaceKeyFunc(t *testing.T) {
	tests := []struct {
		name    string
		obj     *Pod
		want    string
		wantErr error
	}{
		{"namespaced", newPod("default", "web-0", "1"), "default/web-0", nil},
		{"cluster-scoped", newPod("", "node-a", "1"), "node-a", nil},
		{"no name", newPod("default", "", "1"), "", cache.ErrNoName},
		{"no name, cluster-scoped", newPod("", "", "1"), "", cache.ErrNoName},
		{"nil", nil, "", cache.ErrNilObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := cache.MetaNamespaceKeyFunc(tt.obj)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.Empty(t, got, "an object without identity must get no key")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMetaNamespaceKeyFuncErrorNamesNamespace(t *testing.T) {
	_, err := cache.MetaNamespaceKeyFunc(newPod("kube-system", "", ""))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"kube-system"`)
}

func TestKeyFuncAssignable(t *testing.T) {
	// The generic key function instantiates where a KeyFunc is expected.
	var kf cache.KeyFunc[*Pod] = cache.MetaNamespaceKeyFunc
	got, err := kf(newPod("a", "b", ""))
	require.NoError(t, err)
	assert.Equal(t, "a/b", got)
}

func TestSplitMetaNamespaceKey(t *testing.T) {
	tests := []struct {
		key           string
		wantNamespace string
		wantName      string
		wantErr       bool
	}{
		{"default/web-0", "default", "web-0", false},
		{"node-a", "", "node-a", false},
		{"", "", "", true},
		{"/name", "", "", true},
		{"ns/", "", "", true},
		{"a/b/c", "", "", true},
		{"/", "", "", true},
	}
	for _, tt := range tests {
		ns, name, err := cache.SplitMetaNamespaceKey(tt.key)
		if tt.wantErr {
			assert.ErrorIs(t, err, cache.ErrInvalidKey, "SplitMetaNamespaceKey(%q)", tt.key)
			if tt.key != "" {
				assert.Contains(t, err.Error(), tt.key, "the error names the key")
			}
			continue
		}
		require.NoError(t, err, "SplitMetaNamespaceKey(%q)", tt.key)
		assert.Equal(t, tt.wantNamespace, ns, "SplitMetaNamespaceKey(%q) namespace", tt.key)
		assert.Equal(t, tt.wantName, name, "SplitMetaNamespaceKey(%q) name", tt.key)
		assert.Equal(t, tt.key, cache.MetaNamespaceKey(ns, name), "round trip of %q", tt.key)
	}
}

// FuzzSplitMetaNamespaceKey checks that any key either splits into parts
// that rebuild it exactly or fails with ErrInvalidKey, and never panics.
func FuzzSplitMetaNamespaceKey(f *testing.F) {
	for _, seed := range []string{"default/web-0", "node", "", "/", "a//b", "a/b/c", "ns/", "/n", "ü/ß"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			require.ErrorIs(t, err, cache.ErrInvalidKey)
			return
		}
		require.NotEmpty(t, name)
		require.Equal(t, key, cache.MetaNamespaceKey(ns, name))
		got, err := cache.MetaNamespaceKeyFunc(newPod(ns, name, ""))
		require.NoError(t, err)
		require.Equal(t, key, got)
	})
}
