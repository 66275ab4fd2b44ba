package request

// DeleteOptions is the DeleteOptions body (or the same query parameters).
type DeleteOptions struct {
	Kind               string   `json:"kind,omitempty"`
	APIVersion         string   `json:"apiVersion,omitempty"`
	GracePeriodSeconds *int64   `json:"gracePeriodSeconds,omitempty"`
	PropagationPolicy  *string  `json:"propagationPolicy,omitempty"`
	OrphanDependents   *bool    `json:"orphanDependents,omitempty"`
	DryRun             []string `json:"dryRun,omitempty"`
	Preconditions      *struct {
		UID             *string `json:"uid,omitempty"`
		ResourceVersion *string `json:"resourceVersion,omitempty"`
	} `json:"preconditions,omitempty"`
}
