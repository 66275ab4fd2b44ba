package meta

import "fmt"

// Status is the body the API server sends with an error (and, rarely, with a
// success): the HTTP code, a machine-readable Reason and a human message.
// The same shape arrives as the object of a watch ERROR event.
//
// Classify a Status by Code and Reason with its Is methods, never by its
// message text.
type Status struct {
	TypeMeta `json:",inline"`
	// ListMeta carries a fresh continue token in a 410 for an expired one.
	ListMeta `json:"metadata"`
	// Status is "Success" or "Failure".
	Status  string         `json:"status,omitempty"`
	Message string         `json:"message,omitempty"`
	Reason  StatusReason   `json:"reason,omitempty"`
	Details *StatusDetails `json:"details,omitempty"`
	Code    int32          `json:"code,omitempty"`
}

// StatusDetails names the object an error is about and why.
//
// Kind is the plural resource for NotFound, AlreadyExists, Conflict and
// Forbidden, but the Kind for Invalid.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason behind an error, often tied to a field.
type StatusCause struct {
	Type    CauseType `json:"reason,omitempty"`
	Message string    `json:"message,omitempty"`
	Field   string    `json:"field,omitempty"`
}

// StatusReason is the machine-readable reason of a Status.
type StatusReason string

// The reasons the API server uses, with the HTTP code each comes with.
const (
	ReasonBadRequest            StatusReason = "BadRequest"            // 400
	ReasonUnauthorized          StatusReason = "Unauthorized"          // 401
	ReasonForbidden             StatusReason = "Forbidden"             // 403
	ReasonNotFound              StatusReason = "NotFound"              // 404
	ReasonMethodNotAllowed      StatusReason = "MethodNotAllowed"      // 405
	ReasonNotAcceptable         StatusReason = "NotAcceptable"         // 406
	ReasonAlreadyExists         StatusReason = "AlreadyExists"         // 409
	ReasonConflict              StatusReason = "Conflict"              // 409
	ReasonGone                  StatusReason = "Gone"                  // 410, deprecated
	ReasonExpired               StatusReason = "Expired"               // 410
	ReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge" // 413
	ReasonUnsupportedMediaType  StatusReason = "UnsupportedMediaType"  // 415
	ReasonInvalid               StatusReason = "Invalid"               // 422
	ReasonTooManyRequests       StatusReason = "TooManyRequests"       // 429
	ReasonInternalError         StatusReason = "InternalError"         // 500
	ReasonServerTimeout         StatusReason = "ServerTimeout"         // 500
	ReasonServiceUnavailable    StatusReason = "ServiceUnavailable"    // 503
	ReasonTimeout               StatusReason = "Timeout"               // 504
	ReasonUnknown               StatusReason = ""                      // anything else
)

// CauseType is the machine-readable reason of a StatusCause.
type CauseType string

// Cause types the API server uses.
const (
	CauseFieldValueNotFound      CauseType = "FieldValueNotFound"
	CauseFieldValueRequired      CauseType = "FieldValueRequired"
	CauseFieldValueDuplicate     CauseType = "FieldValueDuplicate"
	CauseFieldValueInvalid       CauseType = "FieldValueInvalid"
	CauseFieldValueNotSupported  CauseType = "FieldValueNotSupported"
	CauseFieldValueForbidden     CauseType = "FieldValueForbidden"
	CauseUnexpectedServerResp    CauseType = "UnexpectedServerResponse"
	CauseFieldManagerConflict    CauseType = "FieldManagerConflict"
	CauseResourceVersionTooLarge CauseType = "ResourceVersionTooLarge"
)

// Status values.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// Error returns "<code> <reason>: <message>", the form error messages in
// kubecache use.
func (s *Status) Error() string {
	reason := string(s.Reason)
	if reason == "" {
		reason = "Unknown"
	}
	return fmt.Sprintf("%d %s: %s", s.Code, reason, s.Message)
}

// NewStatus returns a Failure Status with the given code, reason and message.
func NewStatus(code int32, reason StatusReason, message string) *Status {
	return &Status{
		TypeMeta: TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   StatusFailure,
		Code:     code,
		Reason:   reason,
		Message:  message,
	}
}
