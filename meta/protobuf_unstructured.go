package meta

import (
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/kubecache/kubecache/kubeproto"
)

// Unstructured from protobuf: the object's metadata decoded into
// ObjectMeta by the protobuf plan (as PartialObjectMetadata's is), and
// every other member written as the JSON the server writes for it by the
// protobuf-to-JSON writer (protobuf_json.go), so that the result equals
// UnmarshalJSON of the server's JSON for the object. Nothing is converted
// twice: the JSON route (kubeproto.DecodeMessage, then UnmarshalJSON)
// writes the whole object as JSON and scans it again; it remains the
// fallback for what the writer does not take (see protobuf_json.go) and
// for kinds whose metadata is not an ObjectMeta. The benchmark is
// BenchmarkDecodeProtobuf/unstructured in ./bench.

// objectMetaMessage is the table's name of ObjectMeta's message.
const objectMetaMessage = "meta/v1.ObjectMeta"

// unstructuredPlan decodes the message of one kind into an Unstructured.
type unstructuredPlan struct {
	// rest writes the members other than kind, apiVersion and metadata.
	rest *jsonPlan
	// metaNum is the field number of metadata.
	metaNum uint64
	// meta decodes the metadata into ObjectMeta; unknown writes its
	// members that ObjectMeta has no field for (nil: it has one for
	// each).
	meta    *protoPlan
	unknown *jsonPlan
	// typeMeta: the kind's JSON has kind and apiVersion (from the
	// envelope); a WatchEvent's, say, has not.
	typeMeta bool
	// slow: the kind is converted through JSON.
	slow bool
}

// unstructuredPlans caches the plan of each kind.
var unstructuredPlans sync.Map // [2]string{apiVersion, kind} -> *unstructuredPlan

// unstructuredPlanFor returns the plan of (apiVersion, kind); a kind the
// table does not hold is an error wrapping kubeproto.ErrUnknownKind.
func unstructuredPlanFor(apiVersion, kind string) (*unstructuredPlan, error) {
	key := [2]string{apiVersion, kind}
	if p, ok := unstructuredPlans.Load(key); ok {
		return p.(*unstructuredPlan), nil
	}
	m, err := kubeproto.MessageOf(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	p, err := buildUnstructuredPlan(apiVersion, kind, m)
	if err != nil {
		return nil, fmt.Errorf("unstructured plan of %s %s: %w", apiVersion, kind, err)
	}
	actual, _ := unstructuredPlans.LoadOrStore(key, p)
	return actual.(*unstructuredPlan), nil
}

func buildUnstructuredPlan(apiVersion, kind string, m kubeproto.Message) (*unstructuredPlan, error) {
	empty, err := kubeproto.DecodeMessage(apiVersion, kind, nil, false)
	if err != nil {
		return nil, err
	}
	all, err := jsonPlanFor(m, empty)
	if err != nil {
		return nil, err
	}
	// The kind's own copy, with metadata left out: the same message may
	// be written elsewhere with it.
	rest := all.clone()
	p := &unstructuredPlan{rest: rest, slow: rest.slow}
	for i := range m.NumFields() {
		p.typeMeta = p.typeMeta || m.Field(i).Kind == kubeproto.KindTypeMeta
	}
	k := slices.Index(rest.names, "metadata")
	if k < 0 {
		return p, nil // no metadata (APIGroup, say): everything is the rest
	}
	if rest.fields[k].shape != jsonSingle || rest.fields[k].kind != kubeproto.KindMessage ||
		rest.fields[k].sub.msg.Name() != objectMetaMessage {
		// A metadata that is not an ObjectMeta (a ListMeta): what
		// UnmarshalJSON makes of it is its own business.
		p.slow = true
		return p, nil
	}
	f := &rest.fields[k]
	f.shape = jsonSkip
	p.metaNum = uint64(f.num)
	p.meta = protoPlanFor(objectMetaType, f.sub.msg)
	if p.meta == nil {
		return nil, fmt.Errorf("no protobuf plan for ObjectMeta")
	}
	p.unknown = unknownMetadataPlan(f.sub)
	return p, nil
}

// unknownMetadataPlan returns the plan that writes the members of
// ObjectMeta's message that the Go ObjectMeta has no field for (those
// UnmarshalJSON keeps as JSON), or nil when there are none.
func unknownMetadataPlan(all *jsonPlan) *jsonPlan {
	cands, _ := structLayout(objectMetaType)
	known := map[string]bool{}
	for _, c := range cands {
		known[c.name] = true
	}
	p := all.clone()
	some := false
	for i := range p.fields {
		if f := &p.fields[i]; f.shape == jsonInline || known[p.names[i]] {
			f.shape = jsonSkip
		} else {
			some = true
		}
	}
	if !some {
		return nil
	}
	return p
}

// decodeProtobufUnstructured decodes message, the bare protobuf message
// of an object of the given apiVersion and kind, into a new Unstructured
// equal to what UnmarshalJSON makes of the server's JSON for it; kind
// and apiVersion are set from the arguments when kind is not empty.
func decodeProtobufUnstructured(apiVersion, kind string, message []byte) (*Unstructured, error) {
	p, err := unstructuredPlanFor(apiVersion, kind)
	if err != nil {
		return nil, err
	}
	if !p.slow {
		if u, ok := p.decode(apiVersion, kind, message); ok {
			return u, nil
		}
	}
	return convertProtobufUnstructured(apiVersion, kind, message)
}

// convertProtobufUnstructured is decodeProtobufUnstructured through JSON:
// the whole object converted by kubeproto, then decoded by UnmarshalJSON.
func convertProtobufUnstructured(apiVersion, kind string, message []byte) (*Unstructured, error) {
	data, err := kubeproto.DecodeMessage(apiVersion, kind, message, kind != "")
	if err != nil {
		return nil, err
	}
	u := new(Unstructured)
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return u, nil
}

// decode is decodeProtobufUnstructured by the plan; ok is false when the
// writer gives up (the caller then converts through JSON).
func (p *unstructuredPlan) decode(apiVersion, kind string, message []byte) (_ *Unstructured, ok bool) {
	w := jsonWriters.Get().(*jsonWriter)
	defer w.release()
	w.limit = 64*len(message) + 1<<20 // kubeproto's bound on a conversion
	w.out = append(w.out[:0], '{')
	none, ok := w.members(p.rest, message, 1, true)
	if !ok || len(w.out) > w.limit {
		return nil, false
	}
	u := new(Unstructured)
	if !none {
		w.out = append(w.out, '}')
		u.rest = append(make([]byte, 0, len(w.out)), w.out...)
	}
	if p.meta == nil {
		return u.withType(p.typeMeta, apiVersion, kind), true
	}
	// The writer took the message, so metadata is there at most once.
	md, err := lastBytesField(message, p.metaNum)
	if err != nil {
		return nil, false
	}
	if err := p.meta.decode(md, unsafe.Pointer(&u.ObjectMeta), 2); err != nil {
		return nil, false
	}
	if p.unknown != nil {
		w.out = append(w.out[:0], '{')
		none, ok := w.members(p.unknown, md, 2, true)
		if !ok || len(w.out) > w.limit {
			return nil, false
		}
		if !none {
			w.out = append(w.out, '}')
			u.metaUnknown = append(make([]byte, 0, len(w.out)), w.out...)
		}
	}
	return u.withType(p.typeMeta, apiVersion, kind), true
}

// withType sets u's kind and apiVersion as the conversion writes them:
// when the kind's JSON has them (typeMeta) and kind is not empty.
func (u *Unstructured) withType(typeMeta bool, apiVersion, kind string) *Unstructured {
	if typeMeta && kind != "" {
		u.Kind, u.APIVersion = intern(kind), intern(apiVersion)
	}
	return u
}

// clone returns a copy of p whose fields may be changed.
func (p *jsonPlan) clone() *jsonPlan {
	c := *p
	c.fields = slices.Clone(p.fields)
	return &c
}
