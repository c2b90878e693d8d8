// Package crds generates the CustomResourceDefinitions the end-to-end tests install
// in a bare API server, one per kind of api.DefaultRegistry(), with schemas derived
// from the Go types meshguard decodes into.
//
// They exist so that the API server stores real objects (pruning, type checks and
// all) when meshguard's webhook is in front of it. They are test fixtures, not
// product: in production the mesh installs its own CRDs, so they live next to the
// tests (e2e/testdata/crds.yaml) and never in the chart.
package crds

import (
	"reflect"
	"strings"

	"github.com/meshguard/meshguard/api"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Categories lets `kubectl get kuma` / `kubectl get meshguard` list every test policy.
var Categories = []string{"kuma", "meshguard"}

// sectionKeys maps each spec section to its YAML key; a key of a typed spec that is
// not one of these is never dropped by the section filter.
var sectionKeys = map[string]api.Section{
	"targetRef": api.SecTargetRef,
	"to":        api.SecTo,
	"from":      api.SecFrom,
	"rules":     api.SecRules,
	"default":   api.SecDefault,
}

// CRDs returns one namespaced CRD per kind of reg, in registry order. Registry
// entries of one kind in several versions (Linkerd's Server v1beta3 … v1alpha1)
// become one CRD with several served versions, as the API server allows only one
// CRD per group and plural; the kind's first entry is the storage version.
func CRDs(reg *api.Registry) []*apiextensionsv1.CustomResourceDefinition {
	var out []*apiextensionsv1.CustomResourceDefinition
	byName := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for _, k := range reg.Kinds() {
		if c, ok := byName[k.Plural+"."+k.Group]; ok {
			c.Spec.Versions = append(c.Spec.Versions, Version(k, reg.StorageVersion(k)))
			continue
		}
		c := CRD(k)
		c.Spec.Versions[0].Storage = reg.StorageVersion(k)
		byName[c.Name] = c
		out = append(out, c)
	}
	return out
}

// CRD builds the CRD of one kind: a single served and storage version with no
// subresources (meshguard never writes status) and no required fields.
func CRD(k *api.Kind) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta: metav1.TypeMeta{
			APIVersion: apiextensionsv1.SchemeGroupVersion.String(),
			Kind:       "CustomResourceDefinition",
		},
		ObjectMeta: metav1.ObjectMeta{
			Name: k.Plural + "." + k.Group,
			// Lets the e2e suite find and remove exactly the CRDs it installed.
			Labels:      map[string]string{"app.kubernetes.io/part-of": "meshguard-e2e"},
			Annotations: approval(k.Group),
		},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: k.Group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural:     k.Plural,
				Singular:   strings.ToLower(k.Kind),
				Kind:       k.Kind,
				ListKind:   k.Kind + "List",
				Categories: CategoriesOf(k),
			},
			Scope:    apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{Version(k, true)},
		},
	}
}

// approval is the annotation the API server requires of a CRD in a protected group
// (*.k8s.io, such as the Gateway API routes Linkerd validates); a generated fixture
// says it is not approved, which the API server accepts.
func approval(group string) map[string]string {
	if !strings.HasSuffix(group, ".k8s.io") {
		return nil
	}
	return map[string]string{"api-approved.kubernetes.io": "unapproved, meshguard e2e fixture"}
}

// CategoriesOf lets `kubectl get kuma` (or `linkerd`) and `kubectl get meshguard`
// list every test policy of a family.
func CategoriesOf(k *api.Kind) []string {
	if k.Family == api.FamilyKuma {
		return append([]string(nil), Categories...)
	}
	return []string{string(k.Family), "meshguard"}
}

// Version is the CRD version of one registry entry, with its own schema: older
// Linkerd versions lack fields, and the API server must prune them as Linkerd's do.
func Version(k *api.Kind, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
	spec := SpecSchema(k)
	root := apiextensionsv1.JSONSchemaProps{
		Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"kind":       {Type: "string"},
			// The API server validates and prunes metadata itself; a structural schema
			// may say no more than type: object here.
			"metadata": {Type: "object"},
			"spec":     spec,
		},
	}
	var warning *string
	if k.Deprecated != "" {
		w := k.Group + "/" + k.Version + " " + k.Kind + " is deprecated; use " + k.Deprecated
		warning = &w
	}
	return apiextensionsv1.CustomResourceDefinitionVersion{
		Name:                     k.Version,
		DeprecationWarning:       warning,
		Served:                   true,
		Storage:                  storage,
		Deprecated:               k.Deprecated != "",
		Schema:                   &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &root},
		AdditionalPrinterColumns: printerColumns(k),
	}
}

// SpecSchema is the schema of spec for kind k: the schema of k's typed spec with the
// sections k lacks removed, so the API server prunes them (as Kuma's own CRDs make it
// do) and meshguard's unknown-field warning matches what users will see. A kind with
// a typed conf (api.Policy[C]) gets C's schema for its defaults; api.PolicySpec's
// defaults stay free-form.
func SpecSchema(k *api.Kind) apiextensionsv1.JSONSchemaProps {
	spec := SchemaOf(reflect.TypeOf(k.NewSpec()))
	if k.Family != api.FamilyKuma {
		// Sections are a Kuma notion; other families' specs are exactly their types.
		return spec
	}
	for key, sec := range sectionKeys {
		if _, ok := spec.Properties[key]; ok && !k.Sections.Has(sec) {
			delete(spec.Properties, key)
		}
	}
	return spec
}

// printerColumns shows what a policy targets in `kubectl get`, as Kuma's CRDs do; it
// is what one looks at first when a test fails.
func printerColumns(k *api.Kind) []apiextensionsv1.CustomResourceColumnDefinition {
	if !k.Sections.Has(api.SecTargetRef) {
		return nil
	}
	return []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "TargetRef Kind", Type: "string", JSONPath: ".spec.targetRef.kind"},
		{Name: "TargetRef Name", Type: "string", JSONPath: ".spec.targetRef.name"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
	}
}
