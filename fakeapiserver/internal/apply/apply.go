package apply

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"sigs.k8s.io/yaml"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// Result is the outcome of an apply.
type Result struct {
	// Object is the object to store: the live object (or nothing, on
	// create) with the configuration merged in, the fields this manager
	// stopped applying removed when nobody else owns them, and
	// metadata.managedFields updated.
	Object jsonv.Value
	// ManagedFields is Object's metadata.managedFields (nil when no
	// manager owns anything).
	ManagedFields json.RawMessage
	// Changed is false when the apply changed neither the object nor its
	// managedFields: the server then writes nothing.
	Changed bool
}

// Apply performs a server-side apply (PATCH with Content-Type
// application/apply-patch+yaml): config (YAML or JSON) is the manager's
// whole intent for the object; live is the stored object with its
// managedFields, or a null Value when the object does not exist yet.
//
// Fields the configuration changes that other managers own are
// conflicts: without r.Force, Apply returns a *ConflictError listing
// them (the server answers 409); with it, this manager takes them.
// Fields this manager applied last time and leaves out now are removed
// when no other manager owns them. Any other refusal is an *Error with
// the real server's status. Neither live nor config is modified.
func Apply(live jsonv.Value, config []byte, t Type, r Request) (*Result, error) {
	if err := checkManager(r.Manager); err != nil {
		return nil, err
	}
	cfg, err := decodeConfig(config)
	if err != nil {
		return nil, err
	}
	if err := checkKind(cfg, r); err != nil {
		return nil, err
	}
	if md := cfg.Get("metadata"); md != nil {
		if mf := md.Get("managedFields"); mf != nil && mf.Kind != jsonv.Null {
			return nil, &Error{Code: http.StatusBadRequest, Msg: "metadata.managedFields must be nil"}
		}
	}
	switch {
	case r.Subresource == "status":
		cfg = only(cfg, "apiVersion", "kind", "metadata", "status")
	case r.StatusSubresource:
		cfg = without(cfg, "status")
	}
	if r.SpecReset && r.Subresource == "" {
		cfg = without(cfg, "spec")
	}
	root := t.rootNode()
	set := fieldSet{}
	if err := toFieldSet(cfg, root, "", set, true); err != nil {
		return nil, &Error{Code: http.StatusInternalServerError, Msg: fmt.Sprintf("failed to create typed patch object (%s; %s): %v",
			objectName(cfg), gvkString(str(cfg, "apiVersion"), str(cfg, "kind")), err)}
	}
	set = set.filter(r.ownable)

	var liveObj *jsonv.Value
	var entries []*entry
	if live.Kind == jsonv.Object {
		lo := withManagedFields(live, nil)
		liveObj = &lo
		entries, err = decodeManaged(managedFieldsOf(live))
		if err != nil {
			entries = nil
		}
		if len(entries) == 0 {
			entries = beforeFirstApply(lo, t, &r)
		}
	}

	merged := *merge(liveObj, &cfg, root)

	key := managerKey(r.Manager, "Apply", "", r.Subresource)
	mine := find(entries, key)
	last := fieldSet{}
	if mine != nil {
		last = mine.Set
	}
	owned := set.clone()
	for _, e := range entries {
		if e.key() != key {
			owned = owned.union(e.Set)
		}
	}
	drop := fieldSet{}
	for p := range last.minus(set) {
		if !owned.hasUnder(p) {
			drop.add(p)
		}
	}
	if len(drop) > 0 {
		merged, _ = remove(merged, root, drop, "")
	}

	before := jsonv.NewObject()
	if liveObj != nil {
		before = *liveObj
	}
	vc := newVersionedChanges(before, merged, t, &r)

	var conflicts []Conflict
	for _, e := range entries {
		if e.key() == key {
			continue
		}
		for _, p := range e.Set.intersect(vc.at(e.APIVersion).changed).sorted() {
			conflicts = append(conflicts, Conflict{Manager: e.Manager, Operation: e.Operation, APIVersion: e.APIVersion, Subresource: e.Subresource, Path: pathString(p)})
		}
	}
	if len(conflicts) > 0 && !r.Force {
		sortConflicts(conflicts)
		return nil, &ConflictError{Conflicts: conflicts}
	}
	for _, e := range entries {
		if e.key() != key {
			c := vc.at(e.APIVersion)
			e.Set = e.Set.minus(c.changed).minus(c.removed)
		}
	}
	if mine == nil {
		mine = &entry{Manager: r.Manager, Operation: "Apply", Subresource: r.Subresource}
		entries = append(entries, mine)
	}
	mine.APIVersion = r.APIVersion
	mine.Set = set
	objectChanged := liveObj == nil || !valueEqual(*liveObj, merged)
	if objectChanged {
		now := r.Now.UTC().Truncate(time.Second)
		mine.Time = &now
	}
	raw := encodeManaged(entries)
	return &Result{
		Object:        withManagedFields(merged, raw),
		ManagedFields: raw,
		Changed:       objectChanged || !bytes.Equal(raw, managedFieldsOf(live)),
	}, nil
}

// MaxManagerLength is the longest field manager name the server accepts.
const MaxManagerLength = 128

func checkManager(m string) error {
	const prefix = `PatchOptions.meta.k8s.io "" is invalid: fieldManager: `
	switch {
	case m == "":
		return &Error{Code: http.StatusUnprocessableEntity, Msg: prefix + "Required value: is required for apply patch"}
	case len(m) > MaxManagerLength:
		return &Error{Code: http.StatusUnprocessableEntity, Msg: prefix + fmt.Sprintf("Too long: may not be more than %d bytes", MaxManagerLength)}
	case strings.IndexFunc(m, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return &Error{Code: http.StatusUnprocessableEntity, Msg: prefix + fmt.Sprintf("Invalid value: %q: must only contain printable characters", m)}
	}
	return nil
}

// decodeConfig reads an applied configuration, YAML or JSON, into an
// object.
func decodeConfig(config []byte) (jsonv.Value, error) {
	js, err := yaml.YAMLToJSON(config)
	if err != nil {
		return jsonv.Value{}, &Error{Code: http.StatusBadRequest, Msg: "error decoding patch: error converting YAML to JSON: " + strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")}
	}
	res, err := jsonv.Parse(js)
	if err != nil {
		return jsonv.Value{}, &Error{Code: http.StatusBadRequest, Msg: "error decoding patch: " + err.Error()}
	}
	if res.Value.Kind != jsonv.Object {
		kind := res.Value.Kind.String()
		if res.Value.Kind == jsonv.Bool {
			kind = "bool"
		}
		return jsonv.Value{}, &Error{Code: http.StatusBadRequest, Msg: "error decoding patch: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal " + kind + " into Go value of type map[string]interface {}"}
	}
	return res.Value, nil
}

func checkKind(cfg jsonv.Value, r Request) error {
	if r.Kind == "" {
		return nil
	}
	av, k := str(cfg, "apiVersion"), str(cfg, "kind")
	if av != r.APIVersion || k != r.Kind {
		return &Error{Code: http.StatusBadRequest, Msg: "invalid object type: " + gvkString(av, k)}
	}
	return nil
}

func str(obj jsonv.Value, key string) string {
	if v := obj.Get(key); v != nil && v.Kind == jsonv.String {
		return v.Str
	}
	return ""
}

// gvkString renders an apiVersion and kind as the server's messages do:
// "apps/v1, Kind=Deployment", "/v1, Kind=ConfigMap".
func gvkString(apiVersion, kind string) string {
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	}
	return group + "/" + version + ", Kind=" + kind
}

func objectName(obj jsonv.Value) string {
	md := obj.Get("metadata")
	if md == nil {
		return "/"
	}
	return str(*md, "namespace") + "/" + str(*md, "name")
}

// beforeFirstApply returns the entry that owns the fields of live, an
// object nobody has applied to and that holds no managedFields: a
// placeholder updater, so that the first apply cannot silently take
// them. It owns what an update from an empty object to live would, the
// maps it creates included; none when live holds nothing ownable.
func beforeFirstApply(live jsonv.Value, t Type, r *Request) []*entry {
	before := diff(jsonv.NewObject(), live, t, r).changed
	if len(before) == 0 {
		return nil
	}
	now := r.Now.UTC().Truncate(time.Second)
	return []*entry{{Manager: "before-first-apply", Operation: "Update", APIVersion: r.APIVersion, Set: before, Time: &now}}
}
