package fakeapiserver

import (
	"net/http"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/meta"
)

// Sharded list and watch (Options.ShardedListAndWatch, the real server's
// ShardedListAndWatch feature gate): a list or watch with a shardSelector
// sees only the objects whose uid (or namespace) hashes into the
// selector's ranges, and a list says which shard it holds in
// metadata.shardInfo.selector. With the option off the parameter is
// ignored, as a server without the feature ignores it.

// shardOption reads r's shardSelector into o when sharding is on. A
// selector that does not parse is the real server's 500 without a
// reason, "invalid shard selector: …".
func (s *Server) shardOption(r *http.Request, o *request.ListOptions) error {
	if !s.opts.ShardedListAndWatch {
		return nil
	}
	expr := r.URL.Query().Get("shardSelector")
	if expr == "" {
		return nil
	}
	sh, err := request.ParseShard(expr)
	if err != nil {
		return apistatus.New(500, meta.ReasonUnknown, "invalid shard selector: "+err.Error())
	}
	o.Shard = sh
	return nil
}

// appendShardInfo appends a list's ,"shardInfo":{"selector":…} when the
// list was sharded.
func appendShardInfo(buf []byte, page listResult) []byte {
	if page.shard == nil {
		return buf
	}
	buf = append(buf, `,"shardInfo":{"selector":`...)
	buf = strconv.AppendQuote(buf, page.shard.String())
	return append(buf, '}')
}
