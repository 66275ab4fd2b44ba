package webview_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubecache/kubecache/internal/webview"
)

func TestViewOfARealInformer(t *testing.T) {
	e := newEnv(t, envOptions{objects: 12})
	client := &http.Client{}
	t.Cleanup(client.CloseIdleConnections)
	base := e.url[:len(e.url)-1]

	get := func(query string) (int, struct {
		Total int                 `json:"total"`
		Rows  []webview.ObjectRow `json:"rows"`
	}) {
		t.Helper()
		var ans struct {
			Total int                 `json:"total"`
			Rows  []webview.ObjectRow `json:"rows"`
		}
		req, err := http.NewRequestWithContext(e.ctx, http.MethodGet, base+"/api/objects"+query, nil)
		require.NoError(t, err)
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&ans))
		}
		return resp.StatusCode, ans
	}
	code, all := get("")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 12, all.Total)
	require.Len(t, all.Rows, 12)
	assert.Equal(t, webview.ObjectRow{Namespace: testNamespace, Name: "cm-001", RV: all.Rows[0].RV}, all.Rows[0], "sorted by key")
	assert.Equal(t, "cm-012", all.Rows[11].Name)

	_, some := get("?filter=cm-01&limit=2")
	assert.Equal(t, 3, some.Total, "cm-010, cm-011, cm-012 match")
	assert.Equal(t, []string{"cm-010", "cm-011"}, []string{some.Rows[0].Name, some.Rows[1].Name})
	_, none := get("?filter=nothing")
	assert.Equal(t, 0, none.Total)
	assert.NotNil(t, none.Rows, "an empty table is [], not null")
	for _, bad := range []string{"?limit=-1", "?limit=x", fmt.Sprintf("?filter=%0300d", 0)} {
		code, _ := get(bad)
		assert.Equal(t, http.StatusBadRequest, code, bad)
	}

	f := openFrames(t, e.ctx, client, base)
	// The reflector moves from Listing to Watching just after the list is
	// in the store, so a frame can show the store synced while Listing.
	fr := f.until("the synced store and handler, watching", func(fr webview.Frame) bool {
		return fr.Store.Synced && len(fr.Handlers) == 1 && fr.Handlers[0].Synced && fr.State.Kind == "Watching"
	})
	assert.Equal(t, "configmaps", fr.Name)
	assert.Equal(t, 12, fr.Store.Count)
	assert.Equal(t, e.inf.LastSyncResourceVersion(), fr.Store.LastSync)
	require.Len(t, fr.Handlers, 1)
	assert.Equal(t, "configmaps/count", fr.Handlers[0].Name)
	assert.True(t, fr.Handlers[0].Synced)
	assert.Equal(t, uint64(12), fr.Handlers[0].Delivered)

	e.create("late")
	changed := false
	f.until("the new object, counted and highlighted", func(fr webview.Frame) bool {
		for _, k := range fr.Store.Changed {
			changed = changed || k == testNamespace+"/late"
		}
		return changed && fr.Store.Count == 13
	})
}
