package webhook

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/kumaauthz"
)

// countingIndex is index counting its lookups; unlisted makes it unusable.
func countingIndex(t *testing.T, mtps []unstructured.Unstructured, unlisted bool) (PolicyIndex, *int) {
	t.Helper()
	index, err := IndexedPolicies(mtps, "")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	return func(ctx context.Context, key string) ([]unstructured.Unstructured, bool) {
		n++
		if unlisted {
			return nil, false
		}
		return index(ctx, key)
	}, &n
}

// TestPreviewAndWideningShareRelated: the preview and the widening check of
// NewPreviewAndWidening answer as NewPreview's and NewWidening's each on its
// own, and within one review look the stored policies up once for both.
func TestPreviewAndWideningShareRelated(t *testing.T) {
	deny, owner := mustObj(t, denyAll), mustObj(t, ledgerOwner)
	wider := mustObj(t, strings.Replace(ledgerOwner, "{kind: MeshService, name: batch_jobs_svc_80}", "{kind: MeshSubset, tags: {env: dev}}", 1))
	opts := kumaauthz.Options{Form: kumaauthz.FormExpanded, MaxExpandedRules: 64}
	for _, tt := range []struct {
		name     string
		stored   []unstructured.Unstructured
		op       admissionv1.Operation
		obj, old *unstructured.Unstructured
		unlisted bool
	}{
		{"create", stored(deny), admissionv1.Create, owner, nil, false},
		{"update", stored(deny, owner), admissionv1.Update, wider, owner, false},
		{"unchanged update", stored(deny, owner), admissionv1.Update, owner, owner, false},
		{"index not usable", stored(deny), admissionv1.Create, owner, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := admissionRequest(t, "u", tt.op, tt.obj, tt.old, "alice")
			alone, aloneCalls := countingIndex(t, tt.stored, tt.unlisted)
			sep := testEngine()
			sep.Preview = NewPreview(alone, opts)
			sep.Widening = NewWidening(alone, LinkerdSource{}, opts)
			want := sep.Validate(context.Background(), req)

			shared, sharedCalls := countingIndex(t, tt.stored, tt.unlisted)
			eng := testEngine()
			eng.Preview, eng.Widening = NewPreviewAndWidening(shared, LinkerdSource{}, opts)
			got := eng.Validate(context.Background(), req)
			if d := cmp.Diff(want.AdmissionResponse, got.AdmissionResponse); d != "" {
				t.Errorf("shared answer differs (-alone +shared):\n%s", d)
			}
			if want.AuditAnnotations["rbac-preview"] == "" {
				t.Errorf("no preview: %+v", want.AdmissionResponse)
			}

			previewOnly, previewCalls := countingIndex(t, tt.stored, tt.unlisted)
			pv := testEngine()
			pv.Preview = NewPreview(previewOnly, opts)
			pv.Validate(context.Background(), req)
			// The widening check looks up the old object's related policies
			// itself; the incoming object's are the preview's.
			oldCalls := 0
			if tt.old != nil && !tt.unlisted {
				oldCalls = *aloneCalls - 2**previewCalls
			}
			if *sharedCalls != *previewCalls+oldCalls || *sharedCalls >= *aloneCalls {
				t.Errorf("index lookups: shared %d, preview alone %d, separate checks %d", *sharedCalls, *previewCalls, *aloneCalls)
			}
		})
	}
}
