package api

import (
	"context"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// SchemaSet is validation's first layer as the engine receives it: the meshes' CRDs,
// checked as the API server checks them. It is declared here, beside the Settings
// that carry it, so that api (and every engine package above it) does not link the
// API server's apiextensions validation and CEL: package schema implements it
// (*schema.Set) and the doors load it (schema.LoadInto).
type SchemaSet interface {
	// Knows reports whether a CRD of the set serves gvk.
	Knows(gvk schema.GroupVersionKind) bool
	// CheckUpdate judges obj as the API server judges a create (old nil) or an
	// update of old; ok is false when no CRD of the set serves obj's kind and version.
	CheckUpdate(ctx context.Context, obj, old *unstructured.Unstructured) (res SchemaResult, ok bool)
	// FieldsAt names the fields the schema of gvk declares at path, for MG001's hint.
	FieldsAt(gvk schema.GroupVersionKind, path string) []string
	// Deprecation is the CRD's deprecation notice for gvk, "" when it has none.
	Deprecation(gvk schema.GroupVersionKind) string
}

// SchemaResult is what the API server would say about an object: errors deny the
// write; Unknown are the fields it would drop (kubectl warns, or with
// --validate=strict refuses); Warnings are deprecation notices.
type SchemaResult struct {
	Errors   field.ErrorList
	Unknown  []string
	Warnings []string
}
