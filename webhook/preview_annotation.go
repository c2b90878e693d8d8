package webhook

import (
	"encoding/json"
	"fmt"

	"github.com/meshguard/meshguard/kumaauthz"
)

// MaxAnnotationBytes bounds the rbac-preview audit annotation. The API server copies
// it into the audit events of the request, where log files, shippers and audit
// webhooks carry it as part of one line; a group that merges a few policies compiles
// to a few KB (a mesh-wide policy in the load test's cluster of 20: 35 KB), but one
// that merges thousands compiles to megabytes. Past this bound the annotation names
// the groups and (the first 50 of) their policies only, and a warning line says so;
// `meshguard preview` shows the whole configuration.
const MaxAnnotationBytes = 256 << 10

// maxListedPolicies bounds the policy names per group in a bounded annotation.
const maxListedPolicies = 50

// boundedPreview is the annotation's document when the full one is too large.
type boundedPreview struct {
	Truncated boundedNote      `json:"truncated"`
	Previews  []boundedSummary `json:"previews"`
}

type boundedNote struct {
	Bytes  int    `json:"bytes"`
	Limit  int    `json:"limit"`
	Reason string `json:"reason"`
}

type boundedSummary struct {
	Target       kumaauthz.Target `json:"target"`
	Scope        string           `json:"scope"`
	Form         kumaauthz.Form   `json:"form"`
	PolicyCount  int              `json:"policyCount"`
	Policies     []string         `json:"policies"`
	ItemCount    int              `json:"itemCount"`
	FindingCount int              `json:"findingCount,omitempty"`
}

// boundAnnotation returns ann when it is within MaxAnnotationBytes; otherwise the
// bounded document for previews and the warning line that says so.
func boundAnnotation(previews []kumaauthz.Preview, ann string) (string, string) {
	if len(ann) <= MaxAnnotationBytes {
		return ann, ""
	}
	doc := boundedPreview{Truncated: boundedNote{Bytes: len(ann), Limit: MaxAnnotationBytes,
		Reason: "the compiled RBAC is larger than the annotation bound; run meshguard preview on the policies for all of it"}}
	for _, pv := range previews {
		s := boundedSummary{Target: pv.Target, Scope: pv.Scope, Form: pv.Form, PolicyCount: len(pv.Policies) + pv.Hidden,
			Policies: pv.Policies, ItemCount: len(pv.Items), FindingCount: len(pv.Findings)}
		if len(s.Policies) > maxListedPolicies {
			s.Policies = s.Policies[:maxListedPolicies]
		}
		doc.Previews = append(doc.Previews, s)
	}
	b, err := json.Marshal(doc)
	for err == nil && len(b) > MaxAnnotationBytes && len(doc.Previews) > 1 {
		doc.Previews = doc.Previews[:len(doc.Previews)/2]
		b, err = json.Marshal(doc)
	}
	note := fmt.Sprintf("rbac-preview: %d KB of compiled RBAC exceeds the %d KB annotation bound; the annotation lists the groups only",
		(len(ann)+1023)/1024, MaxAnnotationBytes/1024)
	if err != nil || len(b) > MaxAnnotationBytes {
		return "", note
	}
	return string(b), note
}
