package request

// DeleteOptions is the DeleteOptions body (or the same query parameters).
type DeleteOptions struct {
	Kind               string         `json:"kind,omitempty"`
	APIVersion         string         `json:"apiVersion,omitempty"`
	GracePeriodSeconds *int64         `json:"gracePeriodSeconds,omitempty"`
	PropagationPolicy  *string        `json:"propagationPolicy,omitempty"`
	OrphanDependents   *bool          `json:"orphanDependents,omitempty"`
	DryRun             []string       `json:"dryRun,omitempty"`
	Preconditions      *Preconditions `json:"preconditions,omitempty"`
}

// Preconditions are the conditions an object must meet to be deleted.
type Preconditions struct {
	UID             *string `json:"uid,omitempty"`
	ResourceVersion *string `json:"resourceVersion,omitempty"`
}
