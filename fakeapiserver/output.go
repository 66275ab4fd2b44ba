package fakeapiserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
)

// eventEncoding is a watch event's object encoding: a format and the
// apiVersion the watch asked for.
type eventEncoding struct {
	format     outputFormat
	apiVersion string
}

// Encode encodes o as a watch event's object.
func (e eventEncoding) Encode(o *storage.Object) []byte {
	return encodeObject(o, e.format, e.apiVersion)
}

// encodeObject encodes one stored object in a format; apiVersion selects
// the served version ("" keeps the stored one).
func encodeObject(o *storage.Object, format outputFormat, apiVersion string) []byte {
	if format == formatPartial {
		return o.AppendPartial(nil)
	}
	return o.AppendObject(nil, apiVersion)
}

// writeBody sends a compact JSON document as the negotiated format, with
// the trailing newline the real server's encoder writes.
func writeBody(w http.ResponseWriter, n negotiation, code int, body []byte) {
	ct := mediaJSON
	switch {
	case n.format == formatYAML:
		if y, err := yaml.JSONToYAML(body); err == nil {
			body, ct = y, mediaYAML
		}
	case n.pretty:
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err == nil {
			body = buf.Bytes()
		}
	}
	if n.contentType != "" {
		ct = n.contentType
	}
	h := w.Header()
	setContentHeaders(h, ct)
	if len(body) == 0 || body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// setBodyHeaders sets the headers of a compact JSON body in the
// negotiated content type.
func setBodyHeaders(h http.Header, n negotiation) {
	ct := mediaJSON
	if n.contentType != "" {
		ct = n.contentType
	}
	setContentHeaders(h, ct)
}

func setContentHeaders(h http.Header, ct string) {
	h.Set("Content-Type", ct)
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache, private")
	}
}

// writeStatus sends a Status with its code (and Retry-After when the
// Status carries retryAfterSeconds).
func writeStatus(w http.ResponseWriter, r *http.Request, st *meta.Status) {
	body, err := json.Marshal(st)
	if err != nil {
		body = []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"encoding the error failed","reason":"InternalError","code":500}`)
		st = meta.NewStatus(500, meta.ReasonInternalError, "")
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(st.Details.RetryAfterSeconds)))
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	writeBody(w, negotiation{pretty: isPretty(r)}, code, body)
}

// writeError sends err as a Status.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	writeStatus(w, r, apistatus.From(err))
}

// marshal encodes a server-built document (discovery, lists of metadata).
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only server-built values reach here; a failure is a bug.
		panic("fakeapiserver: encode response: " + err.Error())
	}
	return b
}
