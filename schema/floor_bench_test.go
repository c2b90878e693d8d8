package schema

import (
	"context"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/internal/benchcorpus"
)

// BenchmarkFloor10k is the floor the mandated schema library puts under `meshguard
// lint`: BenchmarkLint10k's 10,000 documents, already decoded (outside the timer),
// through the API server's code only, on GOMAXPROCS goroutines as the linter runs
// them. "check" is Set.Check per object — the copy as the API server decodes it,
// pruning, defaulting, the OpenAPI validator, metadata, list types, CEL — exactly
// what the schema layer calls; "validator" is apiextensions-apiserver's
// ValidateCustomResource alone (kube-openapi's validator, as the API server builds
// it for a create) on copies already pruned and defaulted; "validator-trees" is the
// same kube-openapi code with its sub-validators kept between objects, as Check runs
// it (validatorTrees). All report docs/s and
// the CPU per document with the rate it allows on 2 CPUs (docs/performance.md,
// "Linter with the schema layer, against kubeconform").
func BenchmarkFloor10k(b *testing.B) {
	s, err := Load("kuma-2.14")
	if err != nil {
		b.Fatal(err)
	}
	docs := benchcorpus.Documents(benchcorpus.Kuma(10_000))
	objs := make([]*unstructured.Unstructured, len(docs))
	prepared := make([]map[string]any, len(docs))
	validators := make([]apiservervalidation.SchemaValidator, len(docs))
	trees := make([]*validatorTrees, len(docs))
	for i, d := range docs {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			b.Fatal(err)
		}
		objs[i] = &unstructured.Unstructured{Object: m}
		c := s.lookup(objs[i].GroupVersionKind())
		if c == nil {
			b.Fatalf("no schema for %s", objs[i].GroupVersionKind())
		}
		u, err := apiServerCopy(m)
		if err != nil {
			b.Fatal(err)
		}
		pruning.PruneWithOptions(u, c.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, c.structural)
		structuraldefaulting.Default(u, c.structural)
		prepared[i], validators[i], trees[i] = u, c.checkers().validator, c.checkers().trees
	}
	ctx := context.Background()
	b.Run("check", func(b *testing.B) {
		benchcorpus.RunEach(b, len(objs), func(i int) bool {
			res, ok := s.Check(ctx, objs[i])
			return ok && len(res.Errors) == 0 && len(res.Unknown) == 0
		})
	})
	b.Run("validator", func(b *testing.B) {
		benchcorpus.RunEach(b, len(prepared), func(i int) bool {
			return len(apiservervalidation.ValidateCustomResource(nil, prepared[i], validators[i])) == 0
		})
	})
	b.Run("validator-trees", func(b *testing.B) {
		benchcorpus.RunEach(b, len(prepared), func(i int) bool {
			return len(apiservervalidation.ValidateCustomResource(nil, prepared[i], trees[i])) == 0
		})
	})
}
