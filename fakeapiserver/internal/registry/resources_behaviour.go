package registry

import (
	"slices"
	"strconv"

	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
)

// This file is the hand-written half of the resource table: what the real
// server does for a resource beyond storing it. Discovery facts (names,
// verbs, scope) come from resources_builtin.go; the rules here were read
// from the real server's registry strategies and field label conversions.

// FieldSpec says how to read one selectable field from an object.
type FieldSpec struct {
	Path []string
	// typ is the field's Go type on the real server, which decides the
	// value of an absent field ("" / "false" / "0").
	typ fieldType
	// read, when set, replaces the path lookup.
	read func(obj *jsonv.Value) string
}

type fieldType uint8

const (
	fieldString fieldType = iota
	fieldBool
	fieldInt
)

func sf(path ...string) FieldSpec  { return FieldSpec{Path: path} }
func bf(path ...string) FieldSpec  { return FieldSpec{Path: path, typ: fieldBool} }
func inf(path ...string) FieldSpec { return FieldSpec{Path: path, typ: fieldInt} }

// behaviour is the overlay for one group/resource.
type behaviour struct {
	fields           map[string]FieldSpec
	fieldError       func(field string) string
	noNamespaceField bool
	generation       bool
	createOnUpdate   bool
	requireRV        bool
	returnsObject    bool
	nameRule         NameRule
	noWatchCache     bool
	// storage, when set, is the group/resource whose storage the
	// resource shares: its objects are stored in that resource's shape,
	// so the selectable fields are that resource's, reached through
	// fieldLabels.
	storage     string
	fieldLabels map[string]string
}

var eventFields = map[string]FieldSpec{
	"involvedObject.kind":            sf("involvedObject", "kind"),
	"involvedObject.namespace":       sf("involvedObject", "namespace"),
	"involvedObject.name":            sf("involvedObject", "name"),
	"involvedObject.uid":             sf("involvedObject", "uid"),
	"involvedObject.apiVersion":      sf("involvedObject", "apiVersion"),
	"involvedObject.resourceVersion": sf("involvedObject", "resourceVersion"),
	"involvedObject.fieldPath":       sf("involvedObject", "fieldPath"),
	"reason":                         sf("reason"),
	"reportingComponent":             sf("reportingComponent"),
	"source": {read: func(obj *jsonv.Value) string {
		if s := LookupString(obj, "source", "component"); s != "" {
			return s
		}
		return LookupString(obj, "reportingComponent")
	}},
	"type": sf("type"),
}

// behaviours maps "group/resource" to its overlay.
var behaviours = map[string]behaviour{
	"/pods": {
		generation: true, returnsObject: true,
		fields: map[string]FieldSpec{
			"spec.nodeName":           sf("spec", "nodeName"),
			"spec.restartPolicy":      sf("spec", "restartPolicy"),
			"spec.schedulerName":      sf("spec", "schedulerName"),
			"spec.serviceAccountName": sf("spec", "serviceAccountName"),
			"spec.hostNetwork":        bf("spec", "hostNetwork"),
			"status.phase":            sf("status", "phase"),
			"status.podIP": {read: func(obj *jsonv.Value) string {
				if ips := lookup(obj, "status", "podIPs"); ips != nil && ips.Kind == jsonv.Array && len(ips.Arr) > 0 {
					return LookupString(&ips.Arr[0], "ip")
				}
				return LookupString(obj, "status", "podIP")
			}},
			"status.podIPs":            {read: func(*jsonv.Value) string { return "" }},
			"status.nominatedNodeName": sf("status", "nominatedNodeName"),
			"spec.host":                sf("spec", "nodeName"),
		},
	},
	"/nodes":                  {noNamespaceField: true, fields: map[string]FieldSpec{"spec.unschedulable": bf("spec", "unschedulable")}},
	"/namespaces":             {noNamespaceField: true, returnsObject: true, nameRule: NameLabel, fields: map[string]FieldSpec{"status.phase": sf("status", "phase")}},
	"/replicationcontrollers": {generation: true, fields: map[string]FieldSpec{"status.replicas": inf("status", "replicas")}},
	"/events":                 {createOnUpdate: true, noWatchCache: true, nameRule: NamePathSegment, fields: eventFields},
	"/secrets":                {fields: map[string]FieldSpec{"type": sf("type")}},
	"/services":               {createOnUpdate: true, returnsObject: true, nameRule: NameDNS1035, fields: map[string]FieldSpec{"spec.clusterIP": sf("spec", "clusterIP"), "spec.type": sf("spec", "type")}},
	"/endpoints":              {createOnUpdate: true},
	"/limitranges":            {createOnUpdate: true},
	"/serviceaccounts":        {returnsObject: true},
	"/persistentvolumes":      {returnsObject: true},
	"/persistentvolumeclaims": {returnsObject: true},
	"/podtemplates":           {generation: true, returnsObject: true},
	"/resourcequotas":         {returnsObject: true},
	"batch/jobs": {generation: true,
		fields:     map[string]FieldSpec{"status.successful": inf("status", "successful")},
		fieldError: func(f string) string { return "field label " + strconv.Quote(f) + " not supported for Job" }},
	"batch/cronjobs":    {generation: true},
	"apps/deployments":  {generation: true},
	"apps/replicasets":  {generation: true},
	"apps/statefulsets": {generation: true},
	"apps/daemonsets":   {generation: true},
	// The Events of events.k8s.io are the core Events, stored in their
	// shape; the field selectors name events.k8s.io's fields.
	"events.k8s.io/events": {createOnUpdate: true, noWatchCache: true, nameRule: NamePathSegment, storage: "/events", fieldLabels: map[string]string{
		"regarding.kind": "involvedObject.kind", "regarding.namespace": "involvedObject.namespace",
		"regarding.name": "involvedObject.name", "regarding.uid": "involvedObject.uid",
		"regarding.apiVersion": "involvedObject.apiVersion", "regarding.resourceVersion": "involvedObject.resourceVersion",
		"regarding.fieldPath": "involvedObject.fieldPath", "reason": "reason",
		"reportingController": "reportingComponent", "type": "type",
	}},
	"coordination.k8s.io/leases":                                     {createOnUpdate: true, requireRV: true},
	"coordination.k8s.io/leasecandidates":                            {createOnUpdate: true, requireRV: true},
	"rbac.authorization.k8s.io/roles":                                {createOnUpdate: true, nameRule: NamePathSegment},
	"rbac.authorization.k8s.io/rolebindings":                         {createOnUpdate: true, nameRule: NamePathSegment},
	"rbac.authorization.k8s.io/clusterroles":                         {createOnUpdate: true, nameRule: NamePathSegment},
	"rbac.authorization.k8s.io/clusterrolebindings":                  {createOnUpdate: true, nameRule: NamePathSegment},
	"node.k8s.io/runtimeclasses":                                     {createOnUpdate: true, requireRV: true},
	"autoscaling/horizontalpodautoscalers":                           {generation: true},
	"discovery.k8s.io/endpointslices":                                {generation: true},
	"networking.k8s.io/ingresses":                                    {generation: true},
	"networking.k8s.io/ingressclasses":                               {generation: true},
	"networking.k8s.io/ipaddresses":                                  {nameRule: NameIPAddress},
	"networking.k8s.io/networkpolicies":                              {generation: true},
	"policy/poddisruptionbudgets":                                    {generation: true, requireRV: true},
	"scheduling.k8s.io/priorityclasses":                              {generation: true},
	"flowcontrol.apiserver.k8s.io/flowschemas":                       {generation: true},
	"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations":       {generation: true},
	"admissionregistration.k8s.io/mutatingwebhookconfigurations":     {generation: true, requireRV: true},
	"admissionregistration.k8s.io/validatingwebhookconfigurations":   {generation: true, requireRV: true},
	"admissionregistration.k8s.io/validatingadmissionpolicies":       {generation: true, requireRV: true},
	"admissionregistration.k8s.io/validatingadmissionpolicybindings": {generation: true, requireRV: true},
	"admissionregistration.k8s.io/mutatingadmissionpolicies":         {generation: true, requireRV: true},
	"admissionregistration.k8s.io/mutatingadmissionpolicybindings":   {generation: true, requireRV: true},
	"certificates.k8s.io/certificatesigningrequests":                 {noNamespaceField: true, fields: map[string]FieldSpec{"spec.signerName": sf("spec", "signerName")}},
	"certificates.k8s.io/clustertrustbundles":                        {noNamespaceField: true, requireRV: true, nameRule: NameByKind, fields: map[string]FieldSpec{"spec.signerName": sf("spec", "signerName")}},
	"apiregistration.k8s.io/apiservices":                             {nameRule: NamePathSegment},
	"storage.k8s.io/storageclasses":                                  {returnsObject: true},
	"storage.k8s.io/csidrivers":                                      {returnsObject: true, requireRV: true},
	"storage.k8s.io/csinodes":                                        {returnsObject: true, requireRV: true},
	"storage.k8s.io/csistoragecapacities":                            {requireRV: true},
	"storage.k8s.io/volumeattachments":                               {returnsObject: true, requireRV: true},
	"storage.k8s.io/volumeattributesclasses":                         {returnsObject: true},
	"resource.k8s.io/deviceclasses":                                  {generation: true, returnsObject: true},
	"resource.k8s.io/resourceslices": {generation: true, returnsObject: true, noNamespaceField: true, fields: map[string]FieldSpec{
		"spec.nodeName": sf("spec", "nodeName"), "spec.driver": sf("spec", "driver"), "spec.pool.name": sf("spec", "pool", "name")}},
	"resource.k8s.io/devicetaintrules":               {generation: true, requireRV: true},
	"resource.k8s.io/resourceclaims":                 {returnsObject: true},
	"resource.k8s.io/resourceclaimtemplates":         {returnsObject: true},
	"apiextensions.k8s.io/customresourcedefinitions": {generation: true},
}

// applyBehaviour fills r's behaviour fields from the overlay table.
func applyBehaviour(r *Resource) {
	b, ok := behaviours[r.Group+"/"+r.Name]
	if !ok {
		return
	}
	r.Generation = b.generation
	r.CreateOnUpdate = b.createOnUpdate
	r.RequireResourceVersion = b.requireRV
	r.DeleteReturnsObject = b.returnsObject
	r.NameRule = b.nameRule
	r.NoWatchCache = b.noWatchCache
	r.NoNamespaceField = b.noNamespaceField
	r.FieldError = b.fieldError
	r.Fields = nil
	for f := range b.fields {
		r.Fields = append(r.Fields, f)
	}
	r.FieldSpecs = b.fields
	if b.storage != "" {
		r.SharedStorage = b.storage
		r.FieldSpecs = behaviours[b.storage].fields
		r.FieldLabels = b.fieldLabels
		for f := range b.fieldLabels {
			r.Fields = append(r.Fields, f)
		}
	}
	slices.Sort(r.Fields)
}

// lookup follows path through nested objects.
func lookup(obj *jsonv.Value, path ...string) *jsonv.Value {
	cur := obj
	for _, p := range path {
		cur = cur.Get(p)
		if cur == nil {
			return nil
		}
	}
	return cur
}

// LookupString returns the string at path, or "".
func LookupString(obj *jsonv.Value, path ...string) string {
	if v := lookup(obj, path...); v != nil && v.Kind == jsonv.String {
		return v.Str
	}
	return ""
}

// SelectableFields computes the values of r's selectable fields (other
// than metadata.*) for one object, once per write.
func (r *Resource) SelectableFields(obj *jsonv.Value) map[string]string {
	if len(r.FieldSpecs) == 0 {
		return nil
	}
	out := make(map[string]string, len(r.FieldSpecs))
	for name, spec := range r.FieldSpecs {
		if spec.read != nil {
			out[name] = spec.read(obj)
			continue
		}
		v := lookup(obj, spec.Path...)
		switch {
		case v == nil || v.Kind == jsonv.Null:
			switch spec.typ {
			case fieldBool:
				out[name] = "false"
			case fieldInt:
				out[name] = "0"
			default:
				out[name] = ""
			}
		case v.Kind == jsonv.String:
			out[name] = v.Str
		case v.Kind == jsonv.Bool:
			out[name] = strconv.FormatBool(v.B)
		case v.Kind == jsonv.Number:
			out[name] = v.Str
		default:
			out[name] = string(jsonv.Marshal(*v))
		}
	}
	return out
}
