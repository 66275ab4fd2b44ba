package meta

// DeleteOptions is the body of a delete (meta.k8s.io/v1 DeleteOptions),
// which a server also accepts as query parameters: how long the object
// may take to go, what happens to its dependents, and what it must still
// be for the delete to proceed.
type DeleteOptions struct {
	Kind       string `json:"kind,omitempty"`
	APIVersion string `json:"apiVersion,omitempty"`
	// GracePeriodSeconds is how long a pod may take to stop; 0 deletes
	// at once, nil takes the object's default.
	GracePeriodSeconds *int64 `json:"gracePeriodSeconds,omitempty"`
	// PropagationPolicy is "Orphan", "Background" or "Foreground".
	PropagationPolicy *string `json:"propagationPolicy,omitempty"`
	// OrphanDependents is the deprecated form of PropagationPolicy.
	OrphanDependents *bool `json:"orphanDependents,omitempty"`
	// DryRun, when it holds "All", validates without deleting.
	DryRun        []string       `json:"dryRun,omitempty"`
	Preconditions *Preconditions `json:"preconditions,omitempty"`
}

// Preconditions are what an object must still be for a delete to
// proceed: its UID and its resourceVersion, each when set.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}
