package fakeapiserver

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quarter is shard i of 4 over the uid hash, as a shardSelector.
func quarter(i int) string {
	end := fmt.Sprintf("0x%016x", uint64(i+1)<<62)
	if i == 3 {
		end = "0x10000000000000000"
	}
	return fmt.Sprintf("shardRange(object.metadata.uid, '0x%016x', '%s')", uint64(i)<<62, end)
}

func shardQuery(sel string, extra ...string) string {
	v := url.Values{"shardSelector": {sel}}
	for i := 0; i+1 < len(extra); i += 2 {
		v.Set(extra[i], extra[i+1])
	}
	return "?" + v.Encode()
}

func TestShardedListCoversEachObjectOnce(t *testing.T) {
	_, c := newTestServer(t, Options{ShardedListAndWatch: true, NoDefaultObjects: true})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"s"}}`)
	const n = 200
	for i := range n {
		c.mustCreate("/api/v1/namespaces/s/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm-%03d"}}`, i))
	}
	seen := map[string]int{}
	for i := range 4 {
		cont := ""
		for page := 0; ; page++ {
			q := shardQuery(quarter(i), "limit", "17")
			if cont != "" {
				q = shardQuery(quarter(i), "limit", "17", "continue", cont)
			}
			r := c.get("/api/v1/namespaces/s/configmaps" + q)
			require.Equal(t, http.StatusOK, r.code, "%s", r.body)
			list := r.object(t)
			md := list["metadata"].(map[string]any)
			assert.Equal(t, map[string]any{"selector": quarter(i)}, md["shardInfo"], "every page says which shard it holds")
			assert.NotContains(t, md, "remainingItemCount", "a sharded list is filtered")
			for _, it := range list["items"].([]any) {
				seen[it.(map[string]any)["metadata"].(map[string]any)["name"].(string)]++
			}
			cont, _ = md["continue"].(string)
			if cont == "" {
				break
			}
		}
	}
	require.Len(t, seen, n)
	for name, times := range seen {
		require.Equal(t, 1, times, name)
	}
}

func TestShardSelectorIgnoredWithTheOptionOff(t *testing.T) {
	_, c := newTestServer(t, Options{NoDefaultObjects: true})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"s"}}`)
	for i := range 8 {
		c.mustCreate("/api/v1/namespaces/s/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm-%d"}}`, i))
	}
	r := c.get("/api/v1/namespaces/s/configmaps" + shardQuery("not even CEL ("))
	require.Equal(t, http.StatusOK, r.code, "%s", r.body)
	list := r.object(t)
	assert.Len(t, list["items"], 8)
	assert.NotContains(t, list["metadata"], "shardInfo")
}

func TestShardSelectorErrorIsTheRealServers500(t *testing.T) {
	_, c := newTestServer(t, Options{ShardedListAndWatch: true})
	for _, path := range []string{"/api/v1/configmaps", "/api/v1/configmaps?watch=1&"} {
		q := shardQuery("shardRange(object.metadata.uid, '0x0', '0x8')")
		if strings.HasSuffix(path, "&") {
			q = "&" + q[1:]
		}
		r := c.get(strings.TrimSuffix(path, "&") + q)
		require.Equal(t, http.StatusInternalServerError, r.code, "%s", r.body)
		st := r.status(t)
		assert.Equal(t, `invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`, st.Message)
		assert.Empty(t, st.Reason)
		assert.EqualValues(t, 500, st.Code)
	}
}

func TestShardedWatchSendsOnlyItsShard(t *testing.T) {
	_, c := newTestServer(t, Options{ShardedListAndWatch: true, NoDefaultObjects: true})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"s"}}`)
	ws := make([]*clientWatch, 4)
	for i := range ws {
		ws[i] = c.watch("/api/v1/namespaces/s/configmaps" + shardQuery(quarter(i), "watch", "1", "resourceVersion", "1"))
	}
	const n = 40
	for i := range n {
		c.mustCreate("/api/v1/namespaces/s/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm-%02d"}}`, i))
	}
	// A marker in every shard would need a uid chosen in advance; instead
	// each watch is read until the four together have seen all n, and a
	// shard's own list says what it should have seen.
	total := 0
	for i, w := range ws {
		r := c.get("/api/v1/namespaces/s/configmaps" + shardQuery(quarter(i)))
		want := map[string]bool{}
		for _, it := range r.object(t)["items"].([]any) {
			want[it.(map[string]any)["metadata"].(map[string]any)["name"].(string)] = true
		}
		got := map[string]bool{}
		for len(got) < len(want) {
			e := w.next()
			require.Equal(t, "ADDED", e.Type)
			name := e.meta(t).Name
			require.True(t, want[name], "shard %d's watch sent %s, which its list does not hold", i, name)
			got[name] = true
		}
		total += len(want)
	}
	assert.Equal(t, n, total, "the four shards' lists hold every object once")
}

// A deletecollection with a shardSelector deletes exactly the objects of
// that shard and answers a list that says which shard it holds; an
// invalid selector is the list's 500 and deletes nothing; with sharding
// off the parameter is ignored and the whole collection goes, as on a
// server without the feature.
func TestShardedDeleteCollectionDeletesOnlyItsShard(t *testing.T) {
	const cms = "/api/v1/namespaces/s/configmaps"
	populate := func(c *testClient) {
		c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"s"}}`)
		for i := range 40 {
			c.mustCreate(cms, fmt.Sprintf(`{"metadata":{"name":"cm-%02d"}}`, i))
		}
	}
	_, c := newTestServer(t, Options{ShardedListAndWatch: true, NoDefaultObjects: true})
	populate(c)
	all := itemNames(t, decodeList(t, c.get(cms)))
	shard0 := itemNames(t, decodeList(t, c.get(cms+shardQuery(quarter(0)))))
	require.NotEmpty(t, shard0)
	require.Less(t, len(shard0), len(all))

	r := c.do("DELETE", cms+shardQuery("shardRange(object.metadata.uid, '0x0', '0x8')"), "")
	require.Equal(t, http.StatusInternalServerError, r.code, "%s", r.body)
	assert.Equal(t, `invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex value, got "0x0" (did you mean "0x0000000000000000"?)`, r.status(t).Message)
	assert.Len(t, itemNames(t, decodeList(t, c.get(cms))), len(all), "an invalid selector deletes nothing")

	r = c.do("DELETE", cms+shardQuery(quarter(0)), "")
	deleted := decodeList(t, r)
	assert.ElementsMatch(t, shard0, itemNames(t, deleted), "the answer lists the shard's objects")
	assert.Equal(t, map[string]any{"selector": quarter(0)}, deleted.Metadata["shardInfo"])
	left := itemNames(t, decodeList(t, c.get(cms)))
	assert.Len(t, left, len(all)-len(shard0))
	for _, name := range shard0 {
		assert.NotContains(t, left, name, "deleted with its shard")
	}
	assert.Empty(t, itemNames(t, decodeList(t, c.get(cms+shardQuery(quarter(0))))))

	_, off := newTestServer(t, Options{NoDefaultObjects: true})
	populate(off)
	deleted = decodeList(t, off.do("DELETE", cms+shardQuery(quarter(0)), ""))
	assert.Len(t, deleted.Items, 40, "without sharding the selector is ignored")
	assert.NotContains(t, deleted.Metadata, "shardInfo")
	assert.Empty(t, itemNames(t, decodeList(t, off.get(cms))))
}

// TestShardedTableListHasNoShardInfo: a sharded list asked for as a Table
// holds only its shard's rows, and its metadata carries no shardInfo, as
// the real server's Table does not (kube-apiserver v1.37.2 with the
// ShardedListAndWatch gate on).
func TestShardedTableListHasNoShardInfo(t *testing.T) {
	_, c := newTestServer(t, Options{ShardedListAndWatch: true, NoDefaultObjects: true})
	c.mustCreate("/api/v1/namespaces", `{"metadata":{"name":"s"}}`)
	const n = 40
	for i := range n {
		c.mustCreate("/api/v1/namespaces/s/configmaps", fmt.Sprintf(`{"metadata":{"name":"cm-%03d"}}`, i))
	}
	rows := 0
	for i := range 4 {
		r := c.get("/api/v1/namespaces/s/configmaps"+shardQuery(quarter(i)), "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
		require.Equal(t, http.StatusOK, r.code, "%s", r.body)
		table := r.object(t)
		require.Equal(t, "Table", table["kind"])
		md := table["metadata"].(map[string]any)
		assert.NotContains(t, md, "shardInfo")
		assert.Contains(t, md, "resourceVersion")
		rows += len(table["rows"].([]any))
	}
	assert.Equal(t, n, rows, "the four shards' rows are every object once")
}
