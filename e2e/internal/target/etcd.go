package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// compactEtcd compacts etcd at url to its current revision through the
// v3 HTTP gateway (POST /v3/kv/range for the revision, then POST
// /v3/kv/compaction) and returns that revision.
func compactEtcd(ctx context.Context, url string) (int64, error) {
	var rng struct {
		Header struct {
			Revision string `json:"revision"`
		} `json:"header"`
	}
	// The key "\x00" with range_end "\x00" would scan everything; one key
	// with limit 1 is enough to read the header's revision.
	if err := etcdPost(ctx, url+"/v3/kv/range", map[string]any{"key": "AA==", "limit": 1}, &rng); err != nil {
		return 0, fmt.Errorf("compact: read etcd's revision: %w", err)
	}
	rev, err := strconv.ParseInt(rng.Header.Revision, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("compact: etcd's revision %q: %w", rng.Header.Revision, err)
	}
	body := map[string]any{"revision": strconv.FormatInt(rev, 10), "physical": true}
	if err := etcdPost(ctx, url+"/v3/kv/compaction", body, nil); err != nil {
		return 0, fmt.Errorf("compact etcd to revision %d: %w", rev, err)
	}
	return rev, nil
}

func etcdPost(ctx context.Context, url string, in any, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("POST %s: read answer: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %s", url, resp.Status, bytes.TrimSpace(data))
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("POST %s: decode answer: %w", url, err)
	}
	return nil
}
