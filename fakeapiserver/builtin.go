package fakeapiserver

import (
	"errors"
	"strconv"
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apistatus"
	"github.com/kubecache/kubecache/fakeapiserver/internal/builtin"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
	"github.com/kubecache/kubecache/watch"
)

// The real server's handling of built-in kinds between decoding a body
// and storing it (defaulting, the registry's and admission plugins'
// changes, validation, Service addresses, the Go types' encoding): see
// internal/builtin.

// serviceCIDR is the service range of the real server built for the
// end-to-end tests (e2e/realserver.sh), whose kubernetes Service is its
// first address.
const serviceCIDR = "10.96.0.0/16"

// builtinKind names res's kind at the version of a write: the storage
// version of what was written at apiVersion, which may be another
// group's (an events.k8s.io Event is a core Event), with the version
// the request addressed, whose validation rules apply.
func builtinKind(res *registry.Resource, apiVersion string) builtin.Kind {
	group, version := splitAPIVersion(request.StoredAPIVersion(res.Kind, apiVersion))
	return builtin.Kind{Group: group, Version: version, Kind: res.Kind, Request: res.GroupVersion()}
}

// splitAPIVersion splits an apiVersion into its group ("" for the core
// group) and version.
func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// builtinWrite returns the environment of one write.
func (s *Server) builtinWrite(dryRun bool) builtin.Write {
	return builtin.Write{
		Env:      builtin.Env{Now: s.clock.Now(), Priority: s.priorityClass, RuntimeClass: s.runtimeClass, NoNodeTaint: s.opts.NoNodeTaint},
		Services: s.services,
		DryRun:   dryRun,
	}
}

// builtinDecoded does what the real server's decoding does to a
// built-in object's members (conversion, defaulting, the Go types'
// encoding): the state managedFields are recorded from.
func (s *Server) builtinDecoded(res *registry.Resource, apiVersion string, m *meta.ObjectMeta, rest []jsonv.Member) []jsonv.Member {
	if res.Custom {
		return rest
	}
	obj := storage.DocumentOf(rest)
	s.builtinWrite(false).Decoded(builtinKind(res, apiVersion), m, &obj)
	return obj.Obj
}

// builtinRecorded returns a copy of builtinDecoded's members as the real
// field manager reads an update's object (builtin.Recorded: without the
// empty lists of omitempty fields).
func builtinRecorded(res *registry.Resource, apiVersion string, rest []jsonv.Member) []jsonv.Member {
	if res.Custom {
		return rest
	}
	obj := storage.DocumentOf(rest).Clone()
	builtin.Recorded(builtinKind(res, apiVersion), &obj)
	return obj.Obj
}

// builtinWarnings returns the warnings of a new built-in object (members
// as sent, m its metadata): prepared, the decoder's and the real
// registry's, which a refusal carries too, and all, those and the
// strategy's after them.
func (s *Server) builtinWarnings(res *registry.Resource, apiVersion string, m *meta.ObjectMeta, rest []jsonv.Member, warnings []string) (prepared, all []string) {
	if res.Custom {
		return warnings, warnings
	}
	obj := storage.DocumentOf(rest)
	k := builtinKind(res, apiVersion)
	prepared = warnings
	if w := builtin.CreateWarnings(k, m, &obj); len(w) > 0 {
		prepared = append(append([]string(nil), warnings...), w...)
	}
	all = prepared
	if w := builtin.Warnings(k, &obj); len(w) > 0 {
		all = append(append([]string(nil), prepared...), w...)
	}
	return prepared, all
}

// builtinUpdateWarnings adds the real strategies' warnings for an update
// of a built-in object from cur to next (nil: a no-op update) to the
// decoder's.
func (s *Server) builtinUpdateWarnings(res *registry.Resource, apiVersion string, cur, next *storage.Object, warnings []string) []string {
	k := builtinKind(res, apiVersion)
	if res.Custom || !builtin.WarnsOnUpdate(k) {
		return warnings
	}
	if next == nil {
		next = cur
	}
	obj, err := next.Document()
	if err != nil {
		return warnings
	}
	old, err := cur.Document()
	if err != nil {
		return warnings
	}
	if w := builtin.UpdateWarnings(k, &obj, &old, next.Meta.Generation != cur.Meta.Generation); len(w) > 0 {
		return append(append([]string(nil), warnings...), w...)
	}
	return warnings
}

// builtinAdmitCreate runs the registry's, admission plugins' and
// validators' rules on a new built-in object's members, after
// managedFields are recorded.
func (s *Server) builtinAdmitCreate(res *registry.Resource, apiVersion string, m *meta.ObjectMeta, rest []jsonv.Member, dryRun bool) ([]jsonv.Member, error) {
	if res.Custom {
		return rest, nil
	}
	obj := storage.DocumentOf(rest)
	if err := s.builtinWrite(dryRun).AdmitCreate(builtinKind(res, apiVersion), m, &obj); err != nil {
		return nil, builtinError(res, m.Name, err)
	}
	return obj.Obj, nil
}

// builtinAdmitUpdate is builtinAdmitCreate for an update; old are the
// stored object's members.
func (s *Server) builtinAdmitUpdate(res *registry.Resource, apiVersion string, m *meta.ObjectMeta, rest, old []jsonv.Member, dryRun bool) ([]jsonv.Member, error) {
	if res.Custom {
		return rest, nil
	}
	obj, oldObj := storage.DocumentOf(rest), storage.DocumentOf(old)
	if err := s.builtinWrite(dryRun).AdmitUpdate(builtinKind(res, apiVersion), m, &obj, &oldObj); err != nil {
		return nil, builtinError(res, m.Name, err)
	}
	return obj.Obj, nil
}

// builtinStatus does to a write of a built-in object's /status (rest: the
// stored members with the written status) what the real status strategy
// does (builtin.Write.Status): it returns the members to store and, when
// the status was defaulted, the members the field manager records from.
func (s *Server) builtinStatus(res *registry.Resource, apiVersion string, m *meta.ObjectMeta, rest, old []jsonv.Member) ([]jsonv.Member, []byte, error) {
	if res.Custom {
		return rest, nil, nil
	}
	obj, oldObj := storage.DocumentOf(rest), storage.DocumentOf(old)
	written, err := s.builtinWrite(false).Status(builtinKind(res, apiVersion), m, &obj, &oldObj)
	if err != nil {
		return nil, nil, builtinError(res, m.Name, err)
	}
	if written == nil {
		return obj.Obj, nil, nil
	}
	return obj.Obj, storage.EncodeRest(storage.ReplaceMember(obj.Obj, "status", written)), nil
}

// releaseService frees what a Service that was not stored after all
// (its create failed) was given.
func (s *Server) releaseService(res *registry.Resource, m *meta.ObjectMeta) {
	if res.StorageKey() == "/services" {
		s.services.Release(builtin.ServiceOwner(m))
	}
}

// releaseBuiltin frees what a deleted object held: a Service's cluster
// IPs and node ports.
func (s *Server) releaseBuiltin(res *registry.Resource, typ watch.EventType, obj *storage.Object) {
	if typ == watch.Deleted && obj != nil && res.StorageKey() == "/services" {
		s.services.Release(builtin.ServiceOwner(obj.Meta))
	}
}

// builtinError turns a refusal into the real server's Status.
func builtinError(res *registry.Resource, name string, err error) error {
	var inv *builtin.Invalid
	if errors.As(err, &inv) {
		return apistatus.Invalid(res.Group, res.Kind, name, inv.Errors)
	}
	var fb *builtin.Forbidden
	if errors.As(err, &fb) {
		return errAdmissionForbidden(res, name, fb.Message)
	}
	var full builtin.RangeFull
	if errors.As(err, &full) {
		return apistatus.Internal(full)
	}
	return err
}

// errAdmissionForbidden is an admission plugin's 403.
func errAdmissionForbidden(res *registry.Resource, name, msg string) *meta.Status {
	st := apistatus.New(403, meta.ReasonForbidden, res.GroupResource()+" \""+name+"\" is forbidden: "+msg)
	st.Details = &meta.StatusDetails{Name: name, Group: res.Group, Kind: res.Name}
	return st
}

// priorityClass reads a PriorityClass for the Priority admission plugin;
// "" finds the global default.
func (s *Server) priorityClass(name string) (builtin.PriorityClass, bool) {
	table := "scheduling.k8s.io/priorityclasses"
	if name != "" {
		o := s.store.Get(table, name)
		if o == nil {
			return builtin.PriorityClass{}, false
		}
		return priorityOf(o)
	}
	objs, _ := s.store.Current(table)
	var found builtin.PriorityClass
	ok := false
	objs.Ascend("", func(_ string, o *storage.Object) bool {
		doc, err := o.Document()
		if err != nil {
			return true
		}
		if g := doc.Get("globalDefault"); g != nil && g.Kind == jsonv.Bool && g.B {
			found, ok = priorityOf(o)
			return false
		}
		return true
	})
	return found, ok
}

// runtimeClass reads a RuntimeClass for the RuntimeClass admission
// plugin.
func (s *Server) runtimeClass(name string) (builtin.RuntimeClass, bool) {
	o := s.store.Get("node.k8s.io/runtimeclasses", name)
	if o == nil {
		return builtin.RuntimeClass{}, false
	}
	doc, err := o.Document()
	if err != nil {
		return builtin.RuntimeClass{}, false
	}
	var rc builtin.RuntimeClass
	if oh := doc.Get("overhead"); oh != nil && oh.Kind == jsonv.Object {
		rc.HasOverhead = true
		if pf := oh.Get("podFixed"); pf != nil && pf.Kind == jsonv.Object {
			c := pf.Clone()
			rc.Overhead = &c
		}
	}
	if sc := doc.Get("scheduling"); sc != nil && sc.Kind == jsonv.Object {
		if ns := sc.Get("nodeSelector"); ns != nil && ns.Kind == jsonv.Object {
			c := ns.Clone()
			rc.NodeSelector = &c
		}
		if ts := sc.Get("tolerations"); ts != nil && ts.Kind == jsonv.Array {
			rc.Tolerations = ts.Clone().Arr
		}
	}
	return rc, true
}

// priorityOf reads a PriorityClass object.
func priorityOf(o *storage.Object) (builtin.PriorityClass, bool) {
	doc, err := o.Document()
	if err != nil {
		return builtin.PriorityClass{}, false
	}
	pc := builtin.PriorityClass{Name: o.Meta.Name, PreemptionPolicy: registry.LookupString(&doc, "preemptionPolicy")}
	if v := doc.Get("value"); v != nil && v.Kind == jsonv.Number {
		pc.Value, _ = strconv.ParseInt(v.Str, 10, 64)
	}
	return pc, true
}
