package apply

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kubecache/kubecache/meta"
)

// Error is a request server-side apply refuses. Code is the HTTP status
// the real API server answers with (400 for a body it cannot read or
// that names another kind, 422 for a missing field manager, 500 for a
// configuration that does not fit the kind's schema) and Msg its message.
type Error struct {
	Code int
	Msg  string
}

// Error returns the message.
func (e *Error) Error() string { return e.Msg }

// Conflict is one field a configuration changes that another manager
// owns.
type Conflict struct {
	// Manager, Operation, APIVersion and Subresource identify the owner's
	// managedFields entry.
	Manager, Operation, APIVersion, Subresource string
	// Path is the field as the server prints it: ".data.a",
	// `.spec.containers[name="app"].image`.
	Path string
}

// owner renders the owner as conflict messages name it:
// "m1", "kubectl-patch" using v1, "ctrl" with subresource "status".
func (c Conflict) owner() string {
	s := fmt.Sprintf("%q", c.Manager)
	if c.Subresource != "" {
		s += fmt.Sprintf(" with subresource %q", c.Subresource)
	}
	if c.Operation == "Update" {
		s += " using " + c.APIVersion
	}
	return s
}

// ConflictError is an apply that would change fields other managers own
// (HTTP 409, reason Conflict). Conflicts are sorted by owner, then path.
type ConflictError struct {
	Conflicts []Conflict
}

// Error returns the real server's message: `Apply failed with 1
// conflict: conflict with "kubectl-patch" using v1: .data.a`, or for
// several a list grouped by owner.
func (e *ConflictError) Error() string {
	if len(e.Conflicts) == 1 {
		c := e.Conflicts[0]
		return fmt.Sprintf("Apply failed with 1 conflict: conflict with %s: %s", c.owner(), c.Path)
	}
	var lines []string
	last := ""
	for _, c := range e.Conflicts {
		if o := c.owner(); o != last {
			lines = append(lines, fmt.Sprintf("conflicts with %s:", o))
			last = o
		}
		lines = append(lines, "- "+c.Path)
	}
	return fmt.Sprintf("Apply failed with %d conflicts: %s", len(e.Conflicts), strings.Join(lines, "\n"))
}

// Status returns the Status the server answers with: 409 Conflict with a
// FieldManagerConflict cause per field.
func (e *ConflictError) Status() *meta.Status {
	st := &meta.Status{
		TypeMeta: meta.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   meta.StatusFailure,
		Message:  e.Error(),
		Reason:   meta.ReasonConflict,
		Code:     http.StatusConflict,
		Details:  &meta.StatusDetails{},
	}
	for _, c := range e.Conflicts {
		st.Details.Causes = append(st.Details.Causes, meta.StatusCause{
			Type:    meta.CauseFieldManagerConflict,
			Message: "conflict with " + c.owner(),
			Field:   c.Path,
		})
	}
	return st
}

func sortConflicts(cs []Conflict) {
	slices.SortStableFunc(cs, func(a, b Conflict) int {
		return strings.Compare(managerKey(a.Manager, a.Operation, a.APIVersion, a.Subresource), managerKey(b.Manager, b.Operation, b.APIVersion, b.Subresource))
	})
}
