package selector

import "fmt"

// ParseError reports a selector that does not follow the grammar. The API
// server answers such a selector with 400 BadRequest; the fake server does
// the same with this error's text.
//
// Pos is the byte offset into Input where the problem was found (the start
// of the offending token, or len(Input) at the end of the string).
type ParseError struct {
	// Kind is "label" or "field".
	Kind  string
	Input string
	Pos   int
	// Msg says what was wrong, without the position.
	Msg string
}

// Error returns `invalid label selector "<input>": at byte N: <msg>`.
func (e *ParseError) Error() string {
	return fmt.Sprintf("invalid %s selector %q: at byte %d: %s", e.Kind, e.Input, e.Pos, e.Msg)
}

func labelError(input string, pos int, format string, args ...any) *ParseError {
	return &ParseError{Kind: "label", Input: input, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func fieldError(input string, pos int, format string, args ...any) *ParseError {
	return &ParseError{Kind: "field", Input: input, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
