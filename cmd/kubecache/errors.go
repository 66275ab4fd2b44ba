package main

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"syscall"

	"github.com/kubecache/kubecache/reflector"
	"github.com/kubecache/kubecache/rest"
)

// This file turns errors into the lines kubectl prints for the same
// trouble, so that what a user knows from kubectl reads the same here:
//
//	error: the server doesn't have a resource type "foo"
//	Error from server (NotFound): pods "web" not found
//	Error from server (Forbidden): pods is forbidden: User "x" cannot list ...
//	error: You must be logged in to the server (Unauthorized)
//	The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?
//	Unable to connect to the server https://10.0.0.1:6443: dial tcp ...: i/o timeout
//
// Errors are recognised by type (rest.StatusError, UnknownResourceError,
// net errors), never by their text.

// serverError is an error met while talking to the server at URL; it lets
// describeError name the server when the network failed.
type serverError struct {
	URL string
	Err error
}

func (e *serverError) Error() string { return e.URL + ": " + e.Err.Error() }
func (e *serverError) Unwrap() error { return e.Err }

// notFoundError is a named object that the list did not hold: what the
// server would answer to a GET of it.
type notFoundError struct {
	Resource string // "pods", "deployments.apps"
	Name     string
}

func (e *notFoundError) Error() string { return fmt.Sprintf("%s %q not found", e.Resource, e.Name) }

// describeError returns the line(s) printed for err.
func describeError(err error) string {
	var (
		usage    *usageError
		unknown  *rest.UnknownResourceError
		status   *rest.StatusError
		notFound *notFoundError
		server   *serverError
	)
	switch {
	case errors.As(err, &usage):
		help := "kubecache --help"
		if usage.cmd != "" {
			help = "kubecache " + usage.cmd + " --help"
		}
		return fmt.Sprintf("error: %s\nSee '%s' for usage.", usage.msg, help)
	case errors.As(err, &unknown):
		return "error: " + unknown.Error()
	case errors.As(err, &notFound):
		return "Error from server (NotFound): " + notFound.Error()
	case errors.As(err, &status):
		if rest.IsUnauthorized(err) {
			return fmt.Sprintf("error: You must be logged in to the server (%s)", orText(status.Status.Message, "Unauthorized"))
		}
		reason := string(status.Status.Reason)
		if reason == "" {
			reason = fmt.Sprintf("%d", status.Status.Code)
		}
		return fmt.Sprintf("Error from server (%s): %s", reason, orText(status.Status.Message, status.Error()))
	case errors.As(err, &server) && isNetworkError(err):
		if errors.Is(err, syscall.ECONNREFUSED) {
			return fmt.Sprintf("The connection to the server %s was refused - did you specify the right host or port?", hostOf(server.URL))
		}
		return fmt.Sprintf("Unable to connect to the server %s: %s", server.URL, innermostNetError(err))
	}
	return "error: " + err.Error()
}

// isNetworkError reports an error of the connection rather than of the
// server's answer: refused, reset, timed out, unresolvable, a TLS failure.
func isNetworkError(err error) bool {
	var (
		urlErr *url.Error
		opErr  *net.OpError
		dnsErr *net.DNSError
	)
	return errors.As(err, &urlErr) || errors.As(err, &opErr) || errors.As(err, &dnsErr) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
}

// innermostNetError returns the error under the request's *url.Error
// (which repeats the method and URL), or err itself.
func innermostNetError(err error) error {
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Err
	}
	return err
}

// hostOf returns the host:port of a URL, as kubectl names a server that
// refused the connection.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	return u.Host
}

// orText returns s, or alt when s is empty.
func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// asReflectorError finds the reflector's *Error in err.
func asReflectorError(err error, target **reflector.Error) bool { return errors.As(err, target) }
