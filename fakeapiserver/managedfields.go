package fakeapiserver

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
)

// managedFields: every ordinary write (create, update, JSON, merge and
// strategic merge patch) records its manager's Update entry through
// internal/apply's Update (crud_create.go, crud_update.go's
// prepareUpdateManaged); server-side apply computes its entries in
// apply.go. This file holds what both share: who the manager is, and the
// version its fields are recorded at. A write records them at the version
// the client wrote (an HPA sent as autoscaling/v1 owns
// f:targetCPUUtilizationPercentage, though it is stored as v2), so the
// objects compared are converted there first.

// defaultManager derives the field manager from the User-Agent ("kubectl"
// from "kubectl/v1.32.4 (linux/amd64) …"), as the real server does.
func defaultManager(userAgent string) string {
	m, _, _ := strings.Cut(userAgent, "/")
	if len(m) > 128 {
		m = m[:128]
	}
	return m
}

// managedDocument returns o, a stored (or about to be stored) object, as
// a document at apiVersion, the version managedFields are recorded at.
func managedDocument(o *storage.Object, apiVersion string) (jsonv.Value, error) {
	return request.AtVersion(o, apiVersion).Document()
}

// managedConverter returns the apply.Converter of res's objects written
// at apiVersion: an entry another write recorded at a version res
// converts to is compared in that version's fields.
func managedConverter(res *registry.Resource, apiVersion string) apply.Converter {
	return func(obj jsonv.Value, to string) (jsonv.Value, apply.Type, bool) {
		if to == apiVersion {
			return jsonv.Value{}, apply.Type{}, false
		}
		out, ok := request.ConvertDocument(jsonv.Marshal(obj), res.Kind, apiVersion, to)
		if !ok {
			return jsonv.Value{}, apply.Type{}, false
		}
		parsed, err := jsonv.Parse(out)
		if err != nil {
			return jsonv.Value{}, apply.Type{}, false
		}
		return parsed.Value, updateType(res, to), true
	}
}
