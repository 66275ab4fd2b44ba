package rest

import (
	"encoding/json"
	"fmt"
)

// redactedMark replaces a secret when a Config is printed.
const redactedMark = "--- REDACTED ---"

// String describes c for logs and for the %v and %+v verbs, with every
// credential (bearer token, password, client key, exec plugin environment
// values) replaced by a marker, so printing a Config never leaks a secret.
func (c Config) String() string { return fmt.Sprintf("%+v", redacted(c)) }

// GoString is String for the %#v verb.
func (c Config) GoString() string { return fmt.Sprintf("%#v", redacted(c)) }

// MarshalJSON encodes c with the same secrets redacted, so a Config logged
// as JSON (slog's JSONHandler, a debug dump) cannot leak one either. The
// result is for reading, not for loading back: the secrets are gone.
func (c Config) MarshalJSON() ([]byte, error) { return json.Marshal(redacted(c)) }

// printableConfig has Config's fields but not its methods, so formatting it
// does not call String again.
type printableConfig Config

// redacted returns a copy of c with its secrets replaced. The copy shares
// nothing mutable with c.
func redacted(c Config) printableConfig {
	if c.BearerToken != "" {
		c.BearerToken = redactedMark
	}
	if c.Password != "" {
		c.Password = redactedMark
	}
	if len(c.TLS.KeyData) > 0 {
		c.TLS.KeyData = []byte(redactedMark)
	}
	if c.Exec != nil {
		exec := *c.Exec
		exec.Env = make([]ExecEnvVar, len(c.Exec.Env))
		for i, e := range c.Exec.Env {
			exec.Env[i] = ExecEnvVar{Name: e.Name, Value: redactedMark}
		}
		c.Exec = &exec
	}
	return printableConfig(c)
}
