package fakeapiserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/pmap"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// LIST: read a snapshot (current, exact, not-older-than or continued) and
// page through it in key order. Every page of one list reads the snapshot
// of its first page, which the store keeps until it is compacted.

const (
	msgContinueExpired      = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
	msgInconsistentContinue = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
)

// continueToken is the real server's token format, plus the time it was
// issued for Options.ContinueTokenTTL. RV -1 means "at the latest
// resourceVersion" (the inconsistent token of an expired one).
type continueToken struct {
	APIVersion string `json:"v"`
	RV         int64  `json:"rv"`
	Start      string `json:"start"`
	Issued     int64  `json:"t,omitempty"`
}

func encodeContinue(rv int64, start string, issued int64) string {
	b, _ := json.Marshal(continueToken{APIVersion: "meta.k8s.io/v1", RV: rv, Start: start, Issued: issued})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeContinue(s string) (continueToken, error) {
	var c continueToken
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, fmt.Errorf("continue key is not valid: %v", err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("continue key is not valid: %v", err)
	}
	if c.APIVersion != "meta.k8s.io/v1" {
		return c, fmt.Errorf("continue key is not valid: server does not recognize this encoded version %v", c.APIVersion)
	}
	if c.RV == 0 || c.RV < -1 {
		return c, errors.New("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
	}
	if c.Start == "" {
		return c, errors.New("continue key is not valid: encoded start key empty (version meta.k8s.io/v1)")
	}
	key := "/" + strings.TrimPrefix(c.Start, "/")
	if path.Clean(key) != key && path.Clean(key)+"\x00" != key {
		return c, fmt.Errorf("continue key is not valid: %v", c.Start)
	}
	return c, nil
}

// listResult is one page.
type listResult struct {
	items     []*storage.Object
	rv        int64
	cont      string
	remaining *int64
	// shard is the shardSelector the page was filtered by, if any.
	shard *request.Shard
}

// handleList serves GET on a collection.
func (s *Server) handleList(w http.ResponseWriter, r *http.Request, info request.Info, res *registry.Resource) {
	n, err := request.NegotiateRead(r, false)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	if err := n.CheckTarget(res, true); err != nil {
		request.WriteError(w, r, err)
		return
	}
	opts, err := request.ParseListOptions(r, res, "", false, !s.opts.DisableWatchList)
	if err == nil {
		err = s.shardOption(r, &opts)
	}
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	page, err := s.list(r.Context(), res, info.Namespace, opts)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	if n.Format == request.FormatTable {
		// A Table's metadata carries no shardInfo, as the real server's
		// does not: its rows are the shard's all the same.
		unsharded := page
		unsharded.shard = nil
		body, err := s.newTableRenderer(res, info.Version, n).render(page.items, listMetaJSON(unsharded), s.clock.Now(), false)
		if err != nil {
			request.WriteError(w, r, err)
			return
		}
		request.WriteBody(w, n, http.StatusOK, body)
		return
	}
	s.writeList(w, n, res, info.Version, page)
}

// listMetaJSON is a page's list metadata: resourceVersion, and continue
// and remainingItemCount when there is more.
func listMetaJSON(page listResult) []byte {
	return append(appendListMeta([]byte{'{'}, page, false), '}')
}

// appendListMeta appends the members of a page's list metadata to buf:
// resourceVersion; continue and remainingItemCount when there is more
// (an empty continue on the last page when emptyContinue is set, as
// custom resources' lists have); shardInfo for a sharded list.
func appendListMeta(buf []byte, page listResult, emptyContinue bool) []byte {
	buf = append(buf, `"resourceVersion":"`...)
	buf = strconv.AppendInt(buf, page.rv, 10)
	buf = append(buf, '"')
	switch {
	case page.cont != "":
		buf = append(buf, `,"continue":"`...)
		buf = append(buf, page.cont...)
		buf = append(buf, '"')
		if page.remaining != nil {
			buf = append(buf, `,"remainingItemCount":`...)
			buf = strconv.AppendInt(buf, *page.remaining, 10)
		}
	case emptyContinue:
		buf = append(buf, `,"continue":""`...)
	}
	return appendShardInfo(buf, page)
}

// list reads one page.
func (s *Server) list(ctx context.Context, res *registry.Resource, namespace string, o request.ListOptions) (listResult, error) {
	table := res.StorageKey()
	if s.opts.IgnoreLimit {
		o.Limit = 0
	}
	var (
		snap   pmap.Map[*storage.Object]
		readRV int64
		start  string
		limit  = o.Limit
		issued = s.clock.Now().Unix()
	)
	if o.Continue != "" && o.RV == "0" {
		// Served from the watch cache: the rest of the list at the
		// current state, limit ignored.
		tok, err := decodeContinue(o.Continue)
		if err != nil {
			return listResult{}, apistatus.BadRequest("invalid continue token: " + err.Error())
		}
		snap, readRV := s.staleOrCurrent(table)
		return s.page(snap, readRV, namespace, tok.Start, 0, issued, o, res), nil
	}
	if o.Continue != "" {
		if o.RV != "" && o.RV != "0" {
			return listResult{}, apistatus.BadRequest("specifying resource version is not allowed when using continue")
		}
		tok, err := decodeContinue(o.Continue)
		if err != nil {
			return listResult{}, apistatus.BadRequest("invalid continue token: " + err.Error())
		}
		if f := s.faults.TakeContinueExpiry(res); f != nil {
			return listResult{}, s.expiredContinue(tok, f.Inconsistent)
		}
		start = tok.Start
		issued = tok.Issued
		if tok.RV == -1 {
			snap, readRV = s.store.Current(table)
		} else {
			expired := s.opts.ContinueTokenTTL > 0 && tok.Issued > 0 && s.clock.Now().Unix()-tok.Issued > int64(s.opts.ContinueTokenTTL.Seconds())
			if !expired {
				snap, err = s.store.At(table, tok.RV)
				expired = errors.Is(err, storage.ErrCompacted)
			}
			if expired {
				return listResult{}, s.expiredContinue(tok, true)
			}
			if err != nil {
				return listResult{}, err
			}
			readRV = tok.RV
		}
	} else {
		rv, err := request.ParseRV(o.RV)
		if err != nil {
			return listResult{}, apistatus.BadRequest(fmt.Sprintf("invalid resource version: resourceVersion: Invalid value: %q: %v", o.RV, err))
		}
		exact := o.Match == request.MatchExact || (o.Match == "" && rv > 0 && limit > 0)
		switch {
		case o.RV == "0" && o.Match != request.MatchExact:
			// Served from the watch cache: any state, limit ignored.
			snap, readRV = s.staleOrCurrent(table)
			limit = 0
		case exact:
			if err := s.waitForRV(ctx, rv); err != nil {
				return listResult{}, err
			}
			if snap, err = s.store.At(table, rv); err != nil {
				if errors.Is(err, storage.ErrCompacted) {
					return listResult{}, apistatus.Expired(apistatus.MsgListExpired)
				}
				return listResult{}, err
			}
			readRV = rv
		default:
			if err := s.waitForRV(ctx, rv); err != nil {
				return listResult{}, err
			}
			snap, readRV = s.store.Current(table)
		}
	}
	return s.page(snap, readRV, namespace, start, limit, issued, o, res), nil
}

// expiredContinue is the 410 for a continue token whose snapshot is gone;
// inconsistent offers a token that continues at the latest state.
func (s *Server) expiredContinue(tok continueToken, inconsistent bool) error {
	if !inconsistent {
		return apistatus.Expired(msgContinueExpired)
	}
	st := apistatus.Expired(msgInconsistentContinue)
	st.ListMeta.Continue = encodeContinue(-1, tok.Start, s.clock.Now().Unix())
	return st
}

// waitForRV waits for the store to reach rv (a resourceVersion from the
// future), up to Options.TooLargeResourceVersionWait, then gives up with
// the real server's 504.
func (s *Server) waitForRV(ctx context.Context, rv int64) error {
	if rv <= s.store.ResourceVersion() {
		return nil
	}
	timeout, stop := s.clock.NewTimer(s.opts.TooLargeResourceVersionWait)
	defer stop()
	if s.store.WaitFor(ctx, rv, timeout) {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return apistatus.TooLargeRV(rv, s.store.ResourceVersion())
}

// page collects up to limit matching objects after start, in key order.
func (s *Server) page(snap pmap.Map[*storage.Object], readRV int64, namespace, start string, limit int64, issued int64, o request.ListOptions, res *registry.Resource) listResult {
	lo, hi := "", ""
	if namespace != "" && res.Namespaced {
		lo, hi = namespace+"/", namespace+"0" // '0' follows '/'
	}
	from := lo
	if start != "" && start > from {
		from = start
	}
	out := listResult{rv: readRV, shard: o.Shard}
	var last string
	more := false
	snap.Ascend(from, func(key string, obj *storage.Object) bool {
		if hi != "" && key >= hi {
			return false
		}
		if limit > 0 && int64(len(out.items)) >= limit {
			more = true
			return false
		}
		last = key
		if o.Matches(obj, namespace) {
			out.items = append(out.items, obj)
		}
		return true
	})
	if more {
		out.cont = encodeContinue(readRV, last+"\x00", issued)
		if !o.Filtered() {
			end := snap.Len()
			if hi != "" {
				end = snap.Rank(hi)
			}
			remaining := int64(end - snap.Rank(last) - 1)
			out.remaining = &remaining
		}
	}
	return out
}

// streamListMin is the size from which a JSON list is streamed from the
// stored bytes instead of being assembled in memory first.
const streamListMin = 1 << 20

// listOut is where a list is encoded: a bytes.Buffer or a bufio.Writer.
type listOut interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// writeList sends a page as JSON: assembled in one buffer when small (with
// Content-Length), streamed through a buffered writer when large (chunked,
// as the real server sends big lists), so a list of any size costs one
// copy of each stored object and no growing buffer.
func (s *Server) writeList(w http.ResponseWriter, n request.Negotiation, res *registry.Resource, version string, page listResult) {
	if n.Protobuf && s.writeProtobufList(w, n, res, version, page) {
		return
	}
	if n.Format == request.FormatYAML || n.Pretty || listItemsSize(page, n.Format) < streamListMin {
		request.WriteBody(w, n, http.StatusOK, s.encodeList(res, version, n.Format, page))
		return
	}
	request.SetBodyHeaders(w.Header(), n)
	out, closer := request.CompressedWriter(w, n, listItemsSize(page, n.Format))
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(out, 256<<10)
	s.encodeListTo(bw, res, version, n.Format, page)
	_ = bw.WriteByte('\n')
	_ = bw.Flush()
	_ = closer.Close()
}

// listItemsSize is about how many bytes a page's items take encoded.
func listItemsSize(page listResult, format request.Format) int {
	n := 0
	for _, obj := range page.items {
		if format == request.FormatPartial {
			n += obj.MetaEnd + 80
		} else {
			n += len(obj.Body) + 64
		}
	}
	return n
}

// encodeList renders a page as <Kind>List (or PartialObjectMetadataList).
func (s *Server) encodeList(res *registry.Resource, version string, format request.Format, page listResult) []byte {
	var buf bytes.Buffer
	// Room for the list, its metadata and the newline writeBody adds.
	buf.Grow(512 + len(page.cont) + listItemsSize(page, format))
	s.encodeListTo(&buf, res, version, format, page)
	return buf.Bytes()
}

// encodeListTo writes a page as <Kind>List (or PartialObjectMetadataList)
// to out. Items of a built-in resource are written straight from their
// stored bytes.
func (s *Server) encodeListTo(out listOut, res *registry.Resource, version string, format request.Format, page listResult) {
	buf := make([]byte, 0, 512)
	apiVersion := request.GV(res.Group, version)
	if format == request.FormatPartial {
		buf = append(buf, `{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{`...)
	} else {
		buf = append(buf, `{"kind":`...)
		buf = strconv.AppendQuote(buf, res.ListKind)
		buf = append(buf, `,"apiVersion":`...)
		buf = strconv.AppendQuote(buf, apiVersion)
		buf = append(buf, `,"metadata":{`...)
	}
	buf = appendListMeta(buf, page, res.Custom && format != request.FormatPartial)
	buf = append(buf, `},"items":[`...)
	_, _ = out.Write(buf)
	for i, obj := range page.items {
		if i > 0 {
			_ = out.WriteByte(',')
		}
		switch {
		case format == request.FormatPartial:
			buf = obj.AppendPartial(buf[:0])
			_, _ = out.Write(buf)
		case res.Custom:
			buf = obj.AppendObject(buf[:0], apiVersion)
			_, _ = out.Write(buf)
		default:
			_ = out.WriteByte('{')
			_, _ = out.Write(request.AtVersion(obj, apiVersion).Body)
		}
	}
	_, _ = out.WriteString("]}")
}
