package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SchemaHash is the digest of what a CustomResourceDefinition makes the API server
// check: the name and openAPIV3Schema (types, enums, patterns, defaults, CEL rules)
// of every served version, in canonical JSON (sorted keys, no spaces), hashed with
// SHA-256. Two CRDs with the same hash validate, prune and default every object of
// every served version alike, whatever their YAML looked like; the webhook compares
// the installed CRD's hash with the embedded one's to know that the API server
// already ran the schema layer's checks (webhook/schemacheck.go). Every served
// version counts: the API server validates an object in the version it was sent in
// and may convert it before it reaches the webhook.
func SchemaHash(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	type version struct {
		Name   string `json:"name"`
		Schema any    `json:"schema"`
	}
	var served []version
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		var s any
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			// Through `any`: the raw JSON values (defaults, enums, examples) are
			// re-encoded with sorted keys and no spaces, however they were written.
			data, err := json.Marshal(v.Schema.OpenAPIV3Schema)
			if err != nil {
				return "", fmt.Errorf("version %s: %w", v.Name, err)
			}
			if err := json.Unmarshal(data, &s); err != nil {
				return "", fmt.Errorf("version %s: %w", v.Name, err)
			}
		}
		served = append(served, version{Name: v.Name, Schema: s})
	}
	sort.Slice(served, func(i, j int) bool { return served[i].Name < served[j].Name })
	data, err := json.Marshal(struct {
		PreserveUnknownFields bool      `json:"preserveUnknownFields"`
		Versions              []version `json:"versions"`
	}{crd.Spec.PreserveUnknownFields, served})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// EmbeddedCRD names the CRD a kind's schema comes from and its SchemaHash.
type EmbeddedCRD struct {
	// Name is the CRD's metadata.name (<plural>.<group>).
	Name string
	Hash string
}

// crdSource is the embedded CRD the versions of a compiled kind come from. Its
// hash is computed when first asked for: only the webhook compares CRDs, and
// hashing re-encodes the whole schema, which cost a one-file lint more than
// compiling the kind did.
type crdSource struct {
	name string
	once sync.Once
	crd  *apiextensionsv1.CustomResourceDefinition // until hashed
	hash string
}

// embeddedCRD is the source's name and SchemaHash. An embedded CRD always hashes
// (TestEveryReleaseChecks hashes each); were one not to, its hash would be empty
// and match no installed CRD, so the webhook would keep checking the schema.
func (c *crdSource) embeddedCRD() EmbeddedCRD {
	c.once.Do(func() {
		c.hash, _ = SchemaHash(c.crd)
		c.crd = nil
	})
	return EmbeddedCRD{Name: c.name, Hash: c.hash}
}

// CRDOf is the embedded CRD that serves gvk; ok is false when the set has no
// schema for it.
func (s *Set) CRDOf(gvk schema.GroupVersionKind) (crd EmbeddedCRD, ok bool) {
	c := s.lookup(gvk)
	if c == nil {
		return EmbeddedCRD{}, false
	}
	return c.crd.embeddedCRD(), true
}

// EmbeddedCRDs lists the embedded CRDs of every kind the set serves, by name, compiling
// deferred releases first.
func (s *Set) EmbeddedCRDs() map[string]EmbeddedCRD {
	out := map[string]EmbeddedCRD{}
	for _, gvk := range s.Kinds() {
		if c := s.lookup(gvk); c != nil {
			out[c.crd.name] = c.crd.embeddedCRD()
		}
	}
	return out
}

// Deprecation is the warning the API server gives for objects of gvk when its
// version is deprecated, "" otherwise; the schema layer repeats it.
func (s *Set) Deprecation(gvk schema.GroupVersionKind) string {
	if c := s.lookup(gvk); c != nil {
		return c.deprecated
	}
	return ""
}
