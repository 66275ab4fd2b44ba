package fakeapiserver

import "strings"

// managedFields: every ordinary write (create, update, JSON, merge and
// strategic merge patch) records its manager's Update entry through
// internal/apply's Update (crud_create.go, crud_update.go's
// prepareUpdateManaged); server-side apply computes its entries in
// apply.go. This file holds what both share: who the manager is.

// defaultManager derives the field manager from the User-Agent ("kubectl"
// from "kubectl/v1.32.4 (linux/amd64) …"), as the real server does.
func defaultManager(userAgent string) string {
	m, _, _ := strings.Cut(userAgent, "/")
	if len(m) > 128 {
		m = m[:128]
	}
	return m
}
