package kit

import (
	"errors"
	"flag"
)

// UsageError is a wrong invocation (a flag bench cannot parse, or values that
// cannot work together): bench exits 2 for it, and 1 for a measurement that
// failed, so a script can tell the two apart.
type UsageError struct{ Err error }

// Error is the wrapped error's text: bench prints it after the measurement's name.
func (e UsageError) Error() string { return e.Err.Error() }

// Unwrap gives errors.Is and errors.As the wrapped error.
func (e UsageError) Unwrap() error { return e.Err }

// Usage marks err as a UsageError.
func Usage(err error) error { return UsageError{Err: err} }

// Parse parses a subcommand's flags: nil, flag.ErrHelp for -h, or a UsageError
// (the flag package has already printed what was wrong and the flags).
func Parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return Usage(err)
}
