// Package listscan reads a Kubernetes list response (a PodList, a
// ConfigMapList, any <Kind>List) from a stream, handing over each element of
// "items" as raw JSON while the body is being read, so a list of any size is
// processed in the memory of its largest item.
//
// The envelope is a JSON object with "kind", "apiVersion", "metadata" (a
// ListMeta) and "items", in any order; other keys are skipped.
package listscan

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/kubecache/kubecache/meta"
)

// ErrNotAList is wrapped by the errors Scan returns when the JSON is
// well formed but is not a list envelope (not an object, items not an
// array, a key repeated).
var ErrNotAList = errors.New("not a list")

// Scan reads one list object from r and calls each with every element of
// its items array, in order. The slice handed to each is only valid during
// the call. If each returns an error, Scan stops and returns it unchanged.
//
// Scan returns the list's TypeMeta and ListMeta; metadata may come before or
// after items (when it comes after, it is known only once Scan returns).
// Malformed JSON gives an error wrapping a *json.SyntaxError, a body that
// ends early one wrapping io.ErrUnexpectedEOF, and anything after the list
// object other than whitespace is an error.
func Scan(r io.Reader, each func(item []byte) error) (meta.TypeMeta, meta.ListMeta, error) {
	s := scanner{dec: json.NewDecoder(r), each: each}
	err := s.list()
	return s.tm, s.lm, err
}

type scanner struct {
	dec  *json.Decoder
	each func([]byte) error
	tm   meta.TypeMeta
	lm   meta.ListMeta
	item json.RawMessage // reused for every item
	n    int             // items handed over
}

// eachError marks an error returned by the callback, so it passes through
// unwrapped.
type eachError struct{ err error }

func (e eachError) Error() string { return e.err.Error() }

func (s *scanner) list() error {
	if err := s.delim('{', "the list"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for s.dec.More() {
		tok, err := s.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // More inside an object means a key comes
		switch key {
		case "kind", "apiVersion", "metadata", "items":
			if seen[key] {
				return fmt.Errorf("%w: key %q appears twice", ErrNotAList, key)
			}
			seen[key] = true
		}
		switch key {
		case "kind":
			err = s.value(key, &s.tm.Kind)
		case "apiVersion":
			err = s.value(key, &s.tm.APIVersion)
		case "metadata":
			err = s.value(key, &s.lm)
		case "items":
			err = s.items()
		default:
			var skip json.RawMessage
			err = s.value(key, &skip)
		}
		if err != nil {
			var ee eachError
			if errors.As(err, &ee) {
				return ee.err
			}
			return err
		}
	}
	if err := s.delim('}', "the list"); err != nil {
		return err
	}
	if _, err := s.dec.Token(); err != io.EOF {
		if err == nil {
			return fmt.Errorf("%w: data after the list object", ErrNotAList)
		}
		return fmt.Errorf("after the list object: %w", err)
	}
	return nil
}

// items reads the items array (or null), calling each per element.
func (s *scanner) items() error {
	tok, err := s.token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("%w: items is %s, not an array", ErrNotAList, describe(tok))
	}
	for s.dec.More() {
		if err := s.dec.Decode(&s.item); err != nil {
			return fmt.Errorf("items[%d]: %w", s.n, eofIsUnexpected(err))
		}
		if len(s.item) == 0 || s.item[0] != '{' {
			return fmt.Errorf("%w: items[%d] is not an object", ErrNotAList, s.n)
		}
		if err := s.each(s.item); err != nil {
			return eachError{err}
		}
		s.n++
	}
	return s.delim(']', "items")
}

// value decodes the value of key into v.
func (s *scanner) value(key string, v any) error {
	if err := s.dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", key, eofIsUnexpected(err))
	}
	return nil
}

// delim reads the delimiter want.
func (s *scanner) delim(want json.Delim, where string) error {
	tok, err := s.token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		if want == '{' {
			return fmt.Errorf("%w: %s is %s, not an object", ErrNotAList, where, describe(tok))
		}
		return fmt.Errorf("%w: %s: got %s, want %q", ErrNotAList, where, describe(tok), want)
	}
	return nil
}

// token reads a token; an end of input here is always premature.
func (s *scanner) token() (json.Token, error) {
	tok, err := s.dec.Token()
	if err != nil {
		return nil, eofIsUnexpected(err)
	}
	return tok, nil
}

// eofIsUnexpected turns io.EOF (the body ended where more was due) into
// io.ErrUnexpectedEOF.
func eofIsUnexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// describe names a JSON token for an error message.
func describe(tok json.Token) string {
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return "an object"
		}
		if t == '[' {
			return "an array"
		}
		return fmt.Sprintf("%q", string(t))
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", tok)
}
