package api

import "fmt"

// UnknownFieldMode says how a door reports a field the kind's CRD does not declare
// (MG001). The API server answers such a field in one of two ways, depending on
// the client: it prunes it and warns (field validation Warn or Ignore, what an
// admission webhook sees, since the API server decided before calling it), or it
// refuses the whole object (field validation Strict, kubectl apply's default since
// Kubernetes 1.27, and server-side-apply GitOps tools that ask for it). The offline
// doors default to the strict answer, so that CI is red where the apply would be;
// the webhook keeps the API server's own, the zero value.
type UnknownFieldMode string

// The ways to report an unknown field. The zero value means UnknownFieldsWarn.
const (
	// UnknownFieldsError makes MG001 an error, as kubectl apply's strict field
	// validation refuses the object.
	UnknownFieldsError UnknownFieldMode = "error"
	// UnknownFieldsWarn makes MG001 a warning: the API server prunes the field.
	UnknownFieldsWarn UnknownFieldMode = "warn"
	// UnknownFieldsIgnore drops MG001 findings, for tools that prune silently
	// and repositories that rely on it.
	UnknownFieldsIgnore UnknownFieldMode = "ignore"
)

// UnknownFieldsValues are the values --unknown-fields accepts, for flag help and
// completion.
func UnknownFieldsValues() []string {
	return []string{string(UnknownFieldsError), string(UnknownFieldsWarn), string(UnknownFieldsIgnore)}
}

// check reports a value no door can act on.
func (u UnknownFieldMode) check() error {
	switch u {
	case "", UnknownFieldsError, UnknownFieldsWarn, UnknownFieldsIgnore:
		return nil
	}
	return fmt.Errorf("--unknown-fields must be one of error, warn, ignore (got %q)", string(u))
}
