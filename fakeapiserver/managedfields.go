package fakeapiserver

import (
	"strings"

	"github.com/kubecache/kubecache/fakeapiserver/internal/apply"
	"github.com/kubecache/kubecache/fakeapiserver/internal/jsonv"
	"github.com/kubecache/kubecache/fakeapiserver/internal/registry"
	"github.com/kubecache/kubecache/fakeapiserver/internal/request"
	"github.com/kubecache/kubecache/fakeapiserver/internal/storage"
	"github.com/kubecache/kubecache/meta"
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

// specReset reports whether writes to res's main resource neither own
// nor keep .spec, which the server fills in itself: a
// CertificateSigningRequest's requester and request are set at creation
// only, so its writes record no fields there.
func specReset(res *registry.Resource) bool {
	return !res.Custom && res.Group == "certificates.k8s.io" && res.Kind == "CertificateSigningRequest"
}

// managedReset reports whether sent, the managedFields a write carries,
// asks to clear them: an empty list (not an absent one), or a list of
// one empty entry.
func managedReset(sent meta.ManagedFields) bool {
	switch len(sent) {
	case 0:
		return sent != nil
	case 1:
		return sent[0] == meta.ManagedFieldsEntry{}
	}
	return false
}
