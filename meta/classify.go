package meta

// The Is methods classify a Status by its code and reason, never by its
// message. Each is safe on a nil *Status and returns false.
//
// A Status whose reason is one of the known reasons is classified by that
// reason. One with no reason, or with a reason this package does not know
// (a newer server's), is classified by its HTTP code alone, except where
// one code has several meanings (409 reads as Conflict, not AlreadyExists;
// 500 as InternalError, not ServerTimeout).

func (s *Status) is(code int32, reasons ...StatusReason) bool {
	if s == nil {
		return false
	}
	for _, r := range reasons {
		if s.Reason == r {
			return true
		}
	}
	return code != 0 && !knownReason(s.Reason) && s.Code == code
}

// knownReason reports whether r is one of the reasons listed in status.go.
func knownReason(r StatusReason) bool {
	switch r {
	case ReasonBadRequest, ReasonUnauthorized, ReasonForbidden, ReasonNotFound,
		ReasonMethodNotAllowed, ReasonNotAcceptable, ReasonAlreadyExists,
		ReasonConflict, ReasonGone, ReasonExpired, ReasonRequestEntityTooLarge,
		ReasonUnsupportedMediaType, ReasonInvalid, ReasonTooManyRequests,
		ReasonInternalError, ReasonServerTimeout, ReasonServiceUnavailable,
		ReasonTimeout:
		return true
	}
	return false
}

// IsGone reports a 410: the resourceVersion or continue token asked for has
// been compacted away (reason Expired, or the older Gone). The client must
// list again.
func (s *Status) IsGone() bool {
	return s.is(410, ReasonGone, ReasonExpired) || (s != nil && s.Code == 410)
}

// IsNotFound reports a 404 NotFound.
func (s *Status) IsNotFound() bool { return s.is(404, ReasonNotFound) }

// IsAlreadyExists reports a 409 AlreadyExists from a create. Only the
// reason says so: a bare 409 is a Conflict.
func (s *Status) IsAlreadyExists() bool { return s.is(0, ReasonAlreadyExists) }

// IsConflict reports a 409 Conflict: a write carried a stale resourceVersion.
func (s *Status) IsConflict() bool { return s.is(409, ReasonConflict) }

// IsInvalid reports a 422 Invalid.
func (s *Status) IsInvalid() bool { return s.is(422, ReasonInvalid) }

// IsBadRequest reports a 400 BadRequest.
func (s *Status) IsBadRequest() bool { return s.is(400, ReasonBadRequest) }

// IsUnauthorized reports a 401: no or wrong credentials.
func (s *Status) IsUnauthorized() bool { return s.is(401, ReasonUnauthorized) }

// IsForbidden reports a 403: the user may not do this.
func (s *Status) IsForbidden() bool { return s.is(403, ReasonForbidden) }

// IsTooManyRequests reports a 429; RetryAfter says how long to wait.
func (s *Status) IsTooManyRequests() bool { return s.is(429, ReasonTooManyRequests) }

// IsTimeout reports a 504 Timeout (including a too-large resourceVersion) or
// a 500 ServerTimeout.
func (s *Status) IsTimeout() bool { return s.is(504, ReasonTimeout, ReasonServerTimeout) }

// IsInternalError reports a 500 InternalError.
func (s *Status) IsInternalError() bool { return s.is(500, ReasonInternalError) }

// IsServiceUnavailable reports a 503.
func (s *Status) IsServiceUnavailable() bool { return s.is(503, ReasonServiceUnavailable) }

// IsMethodNotAllowed reports a 405: the resource does not support the verb
// (watch, say).
func (s *Status) IsMethodNotAllowed() bool { return s.is(405, ReasonMethodNotAllowed) }

// IsNotAcceptable reports a 406: the server cannot produce any of the
// media types the request accepts.
func (s *Status) IsNotAcceptable() bool { return s.is(406, ReasonNotAcceptable) }

// IsRequestEntityTooLarge reports a 413: the request body is too large.
func (s *Status) IsRequestEntityTooLarge() bool {
	return s.is(413, ReasonRequestEntityTooLarge)
}

// IsUnsupportedMediaType reports a 415: the server does not accept the
// request body's content type (a strategic merge patch on a custom
// resource, say).
func (s *Status) IsUnsupportedMediaType() bool { return s.is(415, ReasonUnsupportedMediaType) }

// IsResourceVersionTooLarge reports the server's answer to a resourceVersion
// newer than anything it has seen: a Timeout with a ResourceVersionTooLarge
// cause. The client should retry with an unset resourceVersion.
func (s *Status) IsResourceVersionTooLarge() bool {
	if s == nil || s.Details == nil {
		return false
	}
	for _, c := range s.Details.Causes {
		if c.Type == CauseResourceVersionTooLarge {
			return true
		}
	}
	return false
}

// RetryAfterSeconds returns details.retryAfterSeconds, or 0.
func (s *Status) RetryAfterSeconds() int {
	if s == nil || s.Details == nil {
		return 0
	}
	return int(s.Details.RetryAfterSeconds)
}
