package differential

import (
	"net/url"
	"testing"
)

// TestShardedLists asks both servers (the real one with its
// ShardedListAndWatch gate on) for sharded lists: the whole hash range
// as one shard holds every object, the list's metadata names the
// selector as the server writes it, a Table holds the shard's rows with
// no shardInfo, and a selector that is not a shardRange is the same 500.
// Shards narrower than the whole range are not compared: they hold the
// objects whose uids fall in them, and each server picks its own uids.
func TestShardedLists(t *testing.T) {
	s := pair(t)
	t.Parallel()
	c := s.NewCase(t, "e2e-shard")
	c.Setup(createCM("a", "k", "1"), createCM("b", "k", "2"))
	whole := "?shardSelector=" + url.QueryEscape("shardRange(object.metadata.uid,'0x0000000000000000','0x10000000000000000')")
	c.Compare("the whole range as one shard", get(cms+whole))
	c.Compare("paginated", get(cms+whole+"&limit=1"))
	c.Compare("as a Table", Request{Path: cms + whole, Header: map[string]string{"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io"}})
	c.Compare("not a shardRange (500)", get(cms+"?shardSelector="+url.QueryEscape("uid=1")))
	c.Compare("an empty range", get(cms+"?shardSelector="+url.QueryEscape("shardRange(object.metadata.uid,'0x8000000000000000','0x8000000000000000')")))
}
