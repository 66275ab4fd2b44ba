package cliprint

import (
	"errors"
	"fmt"
)

// Format is an output format of -o.
type Format int

// The formats, as kubectl names them.
const (
	// Table is the default: NAME, the kind's columns, AGE.
	Table Format = iota
	// Wide is the table with the kind's extra columns (-o wide).
	Wide
	// JSON prints the objects as JSON: one object, or a List.
	JSON
	// YAML prints the objects as YAML: one object, or a List.
	YAML
	// Name prints one "kind.group/name" per line.
	Name
)

// ErrUnknownFormat matches ParseFormat's *FormatError with errors.Is.
var ErrUnknownFormat = errors.New("unknown output format")

// FormatError is an -o value ParseFormat does not know. Its message is
// kubectl's.
type FormatError struct {
	Format string
}

// Error returns `unable to match a printer suitable for the output format
// "<format>", allowed formats are: json,name,wide,yaml`.
func (e *FormatError) Error() string {
	return fmt.Sprintf("unable to match a printer suitable for the output format %q, allowed formats are: json,name,wide,yaml", e.Format)
}

// Is makes errors.Is(err, ErrUnknownFormat) true.
func (e *FormatError) Is(target error) bool { return target == ErrUnknownFormat }

// ParseFormat reads the value of -o: "" (a table), "wide", "json", "yaml"
// or "name". Anything else is a *FormatError.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "":
		return Table, nil
	case "wide":
		return Wide, nil
	case "json":
		return JSON, nil
	case "yaml":
		return YAML, nil
	case "name":
		return Name, nil
	}
	return 0, &FormatError{Format: s}
}

// String returns the -o value that selects f ("" for Table).
func (f Format) String() string {
	switch f {
	case Wide:
		return "wide"
	case JSON:
		return "json"
	case YAML:
		return "yaml"
	case Name:
		return "name"
	}
	return ""
}
