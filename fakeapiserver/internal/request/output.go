package request

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/kubeproto"
	"github.com/kubecache/kubecache/meta"
)

// EventEncoding is a watch event's object encoding: a format, the
// apiVersion the watch asked for, and whether in protobuf.
type EventEncoding struct {
	Format     Format
	APIVersion string
	Protobuf   bool
}

// Encode encodes o as a watch event's object: JSON, or its protobuf body
// (Magic and envelope) when the encoding asks for protobuf.
func (e EventEncoding) Encode(o *storage.Object) []byte {
	data := EncodeObject(o, e.Format, e.APIVersion)
	if e.Protobuf {
		return ProtobufOrJSON(data)
	}
	return data
}

// ProtobufOrJSON converts a JSON object to its protobuf body, or returns
// it unchanged when its kind has no protobuf message (a custom resource).
func ProtobufOrJSON(data []byte) []byte {
	if pb, err := kubeproto.Encode(data); err == nil {
		return pb
	}
	return data
}

// EncodeObject encodes one stored object in a format; apiVersion selects
// the served version ("" keeps the stored one).
func EncodeObject(o *storage.Object, format Format, apiVersion string) []byte {
	if format == FormatPartial {
		return o.AppendPartial(nil)
	}
	return AtVersion(o, apiVersion).AppendObject(nil, apiVersion)
}

// WriteBody sends a compact JSON document as the negotiated format, with
// the trailing newline the real server's encoder writes; in protobuf when
// negotiated and the document's kind has a message (otherwise in JSON, as
// the real server answers for custom resources).
func WriteBody(w http.ResponseWriter, n Negotiation, code int, body []byte) {
	if n.Protobuf && (n.Format == FormatJSON || n.Format == FormatPartial) {
		if pb, err := kubeproto.Encode(body); err == nil {
			setContentHeaders(w.Header(), MediaProtobuf)
			writeSized(w, n, code, pb)
			return
		}
	}
	ct := MediaJSON
	switch {
	case n.Format == FormatYAML:
		if y, err := yaml.JSONToYAML(body); err == nil {
			body, ct = y, MediaYAML
		}
	case n.Pretty:
		var buf bytes.Buffer
		if err := json.Indent(&buf, body, "", "  "); err == nil {
			body = buf.Bytes()
		}
	}
	if n.ContentType != "" {
		ct = n.ContentType
	}
	h := w.Header()
	setContentHeaders(h, ct)
	if len(body) == 0 || body[len(body)-1] != '\n' {
		body = append(body, '\n')
	}
	writeSized(w, n, code, body)
}

// WriteObject sends a stored object served at apiVersion as the
// negotiated format. Its protobuf encoding is built once per object
// version and kept with it (storage.Object.Encoded), as list items' are,
// so repeated reads of one version do not encode it again.
func WriteObject(w http.ResponseWriter, n Negotiation, code int, o *storage.Object, apiVersion string) {
	if n.Protobuf && n.Format == FormatJSON {
		at := AtVersion(o, apiVersion)
		pb := at.Encoded("protobuf object "+apiVersion, func() []byte {
			pb, err := kubeproto.Encode(at.AppendObject(nil, apiVersion))
			if err != nil {
				return nil
			}
			return pb
		})
		if len(pb) > 0 {
			setContentHeaders(w.Header(), MediaProtobuf)
			writeSized(w, n, code, pb)
			return
		}
	}
	WriteBody(w, n, code, EncodeObject(o, n.Format, apiVersion))
}

// writeSized sends a complete body: with its Content-Length, or
// gzip-encoded when it is large and the client accepts gzip.
func writeSized(w http.ResponseWriter, n Negotiation, code int, body []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	out, closer := CompressedWriter(w, n, len(body))
	w.WriteHeader(code)
	_, _ = out.Write(body)
	_ = closer.Close()
}

// SetBodyHeaders sets the headers of a compact JSON body in the
// negotiated content type.
func SetBodyHeaders(h http.Header, n Negotiation) {
	ct := MediaJSON
	if n.ContentType != "" {
		ct = n.ContentType
	}
	setContentHeaders(h, ct)
}

func setContentHeaders(h http.Header, ct string) {
	h.Set("Content-Type", ct)
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache, private")
	}
}

// WriteStatus sends a Status with its code (and Retry-After when the
// Status carries retryAfterSeconds).
func WriteStatus(w http.ResponseWriter, r *http.Request, st *meta.Status) {
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
	n, _ := Negotiate(r, false)
	WriteBody(w, Negotiation{Pretty: IsPretty(r), Protobuf: n.Protobuf, Gzip: n.Gzip}, code, body)
}

// WriteError sends err as a Status.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	WriteStatus(w, r, apistatus.From(err))
}

// Marshal encodes a server-built document (discovery, lists of metadata).
func Marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		// Only server-built values reach here; a failure is a bug.
		panic("fakeapiserver: encode response: " + err.Error())
	}
	return b
}
