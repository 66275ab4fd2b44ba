package fakeapiserver

import "github.com/kubecache/kubecache/fakeapiserver/internal/auth"

// User is who a request acts as.
type User = auth.User

// ForbidRule denies matching requests with 403. Empty fields match
// anything; Verb uses Kubernetes verbs (get, list, watch, create, update,
// patch, delete, deletecollection).
type ForbidRule = auth.ForbidRule

// ImpersonateRule lets a user, or the members of a group, act as other
// users through the Impersonate-* headers (Options.Impersonate). Members
// of system:masters may always; anyone else needs a rule.
type ImpersonateRule = auth.ImpersonateRule

// ClientUser is the user of the generated client certificate (its common
// name and organization).
var ClientUser = auth.ClientUser
