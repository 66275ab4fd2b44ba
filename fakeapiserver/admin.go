package fakeapiserver

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/auth"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
)

// The admin endpoint: the fault controls of faults.go over HTTP, for
// tests in other processes and languages. Served only with Options.Admin;
// with authentication on, it needs Options.AdminToken as a bearer token.
//
//	POST /kubecache-admin/fail             FailRule
//	POST /kubecache-admin/delay            {"verb","resource","namespace","count","delay":"2s"}
//	POST /kubecache-admin/expire-continue  {"resource","count","inconsistent"}
//	POST /kubecache-admin/cut-watches      {"resource","namespace","mode":"abort|midframe|clean"}
//	POST /kubecache-admin/stall-watches    {"resource","namespace"}
//	POST /kubecache-admin/corrupt-next-frame {"resource","namespace"}
//	POST /kubecache-admin/compact          {"resourceVersion":N} (omitted: now)
//	POST /kubecache-admin/restart          {"compact":true}
//	POST /kubecache-admin/stale-lists      {"resourceVersion":N} (0 stops)
//	POST /kubecache-admin/clear
//	GET  /kubecache-admin/state            {"resourceVersion","compacted","watchers"}

const adminPrefix = "/kubecache-admin/"

func isAdminPath(p string) bool { return strings.HasPrefix(p, adminPrefix) }

func (s *Server) serveAdmin(w http.ResponseWriter, r *http.Request) {
	if s.auth.Enabled() {
		token, ok := auth.BearerToken(r)
		if !ok || s.opts.AdminToken == "" || subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.AdminToken)) != 1 {
			request.WriteStatus(w, r, auth.Unauthorized())
			return
		}
	}
	op := strings.TrimPrefix(r.URL.Path, adminPrefix)
	if op == "state" {
		request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r)}, http.StatusOK, request.Marshal(map[string]any{
			"resourceVersion": s.store.ResourceVersion(),
			"compacted":       s.store.CompactedRV(),
			"watchers":        s.Watchers(""),
		}))
		return
	}
	if r.Method != http.MethodPost {
		request.WriteStatus(w, r, apistatus.MethodNotAllowed())
		return
	}
	body, err := request.ReadBody(r, s.opts.MaxRequestBodyBytes)
	if err != nil {
		request.WriteError(w, r, err)
		return
	}
	decode := func(v any) bool {
		if len(body) == 0 {
			return true
		}
		if err := json.Unmarshal(body, v); err != nil {
			request.WriteStatus(w, r, apistatus.BadRequest(fmt.Sprintf("admin %s: %v", op, err)))
			return false
		}
		return true
	}
	result, ok := s.adminOp(w, r, op, decode)
	if !ok {
		return
	}
	request.WriteBody(w, request.Negotiation{Pretty: request.IsPretty(r)}, http.StatusOK, request.Marshal(result))
}

// adminOp runs one admin operation. It returns the result to send, or
// false when it has answered the request itself (an error, or a restart
// that answers before dropping the connection).
func (s *Server) adminOp(w http.ResponseWriter, r *http.Request, op string, decode func(any) bool) (map[string]any, bool) {
	result := map[string]any{}
	switch op {
	case "fail":
		var rule FailRule
		if !decode(&rule) {
			return nil, false
		}
		if rule.Code < 400 || rule.Code > 599 {
			request.WriteStatus(w, r, apistatus.BadRequest(fmt.Sprintf("admin fail: code %d is not an error status", rule.Code)))
			return nil, false
		}
		s.FailNext(rule)
	case "delay":
		var req struct {
			request.Match
			Count int    `json:"count"`
			Delay string `json:"delay"`
		}
		if !decode(&req) {
			return nil, false
		}
		d, err := time.ParseDuration(req.Delay)
		if err != nil || d <= 0 {
			request.WriteStatus(w, r, apistatus.BadRequest(fmt.Sprintf("admin delay: invalid delay %q", req.Delay)))
			return nil, false
		}
		s.DelayNext(DelayRule{Match: req.Match, Count: req.Count, Delay: d})
	case "expire-continue":
		var req struct {
			request.Match
			Count        int  `json:"count"`
			Inconsistent bool `json:"inconsistent"`
		}
		if !decode(&req) {
			return nil, false
		}
		s.ExpireNextContinue(req.Match, req.Count, req.Inconsistent)
	case "cut-watches":
		var req struct {
			request.Match
			Mode string `json:"mode"`
		}
		if !decode(&req) {
			return nil, false
		}
		mode := CutAbort
		switch req.Mode {
		case "", "abort":
		case "midframe":
			mode = CutMidFrame
		case "clean":
			mode = CutClean
		default:
			request.WriteStatus(w, r, apistatus.BadRequest(fmt.Sprintf("admin cut-watches: unknown mode %q (abort, midframe, clean)", req.Mode)))
			return nil, false
		}
		result["count"] = s.CutWatches(req.Match, mode)
	case "corrupt-next-frame":
		var m request.Match
		if !decode(&m) {
			return nil, false
		}
		result["count"] = s.CorruptNextWatchFrame(m)
	case "stall-watches":
		var m request.Match
		if !decode(&m) {
			return nil, false
		}
		result["count"] = s.StallWatches(m)
	case "compact":
		var req struct {
			ResourceVersion *int64 `json:"resourceVersion"`
		}
		if !decode(&req) {
			return nil, false
		}
		if req.ResourceVersion != nil {
			result["compacted"] = s.CompactTo(*req.ResourceVersion)
		} else {
			result["compacted"] = s.CompactNow()
		}
	case "restart":
		var req struct {
			Compact bool `json:"compact"`
		}
		if !decode(&req) {
			return nil, false
		}
		// Answer first: the restart drops this connection too.
		request.WriteBody(w, request.Negotiation{}, http.StatusOK, request.Marshal(result))
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		s.Restart(req.Compact)
		return nil, false
	case "stale-lists":
		var req struct {
			ResourceVersion int64 `json:"resourceVersion"`
		}
		if !decode(&req) {
			return nil, false
		}
		s.ServeStaleLists(req.ResourceVersion)
	case "clear":
		s.ClearFaults()
	default:
		request.WriteStatus(w, r, apistatus.PathNotFound())
		return nil, false
	}
	return result, true
}
