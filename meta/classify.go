package meta

// The Is methods classify a Status by its code and reason, never by its
// message. Each is safe on a nil *Status and returns false.

func (s *Status) is(code int32, reasons ...StatusReason) bool {
	if s == nil {
		return false
	}
	for _, r := range reasons {
		if s.Reason == r {
			return true
		}
	}
	// A Status with no reason is classified by its code alone.
	return s.Reason == ReasonUnknown && s.Code == code
}

// IsGone reports a 410: the resourceVersion or continue token asked for has
// been compacted away (reason Expired, or the older Gone). The client must
// list again.
func (s *Status) IsGone() bool {
	return s.is(410, ReasonGone, ReasonExpired) || (s != nil && s.Code == 410)
}

// IsNotFound reports a 404 NotFound.
func (s *Status) IsNotFound() bool { return s.is(404, ReasonNotFound) }

// IsAlreadyExists reports a 409 AlreadyExists from a create.
func (s *Status) IsAlreadyExists() bool { return s.is(409, ReasonAlreadyExists) }

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
