// Package audit lints what a live cluster stores, with the linter's engine and
// cross-document stages, and publishes the result as policy reports
// (OpenReports, or the older wg-policy PolicyReports) and as a Prometheus
// gauge. Objects stored before meshguard was installed, or while its webhook
// was failing open, are found here.
package audit

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
)

// Options say what one audit reads and how it lints.
type Options struct {
	// Lint are the linter's options (settings, registry, stages, suppressions).
	// Namespace is not used for stored objects, which all have theirs.
	Lint lint.Options
	// Live says which namespaces and kinds are read; Inventory is always on, so
	// the cross-document checks see the cluster's Namespaces, Services and
	// workloads.
	Live live.Options
}

// Result is one audit's outcome.
type Result struct {
	Findings []lint.Finding
	// Summary counts the policies read (Documents) and the findings; inventory
	// objects are linted too (the Linkerd annotation check) but not counted as
	// documents.
	Summary lint.Summary
	// Policies and Inventory count what was read.
	Policies, Inventory int
	// Skipped are the kinds not read (not served, forbidden).
	Skipped []live.Skipped
	// objects maps each audited object to its identity for report references.
	objects map[ref]objectInfo
}

// ref is an object's identity in findings and reports.
type ref struct{ apiVersion, kind, namespace, name string }

type objectInfo struct {
	uid, resourceVersion string
}

// Run reads the cluster through r and lints everything read in one run, so the
// cross-document stages (the RBAC analysis, Linkerd Server conflicts, and
// references resolved against the inventory) see the whole cluster at once.
func Run(ctx context.Context, r *live.Reader, o Options) (Result, error) {
	ro := o.Live
	ro.Inventory = true
	ro.Extra = append(ro.Extra, dataplanesGVR())
	read, err := r.Read(ctx, ro)
	if err != nil {
		return Result{}, err
	}
	// Kuma writes a Dataplane per pod: the proxies the Kuma cross-policy checks
	// (MG450-MG453) judge policies against. They are not the users' objects, so
	// they are not audited themselves, only read by the checks.
	var dataplanes []*unstructured.Unstructured
	kept := read.Inventory[:0]
	for _, d := range read.Inventory {
		if gvk := d.Object.GroupVersionKind(); gvk.Group == api.KumaGroup && gvk.Kind == api.KindDataplane {
			dataplanes = append(dataplanes, d.Object)
			continue
		}
		kept = append(kept, d)
	}
	read.Inventory = kept
	// The inventory is linted in the same run rather than handed over as
	// lint.InventoryOf: the stages need its objects as documents (the Linkerd
	// Server checks read pod templates, the reference stage enters every object
	// of the run), and Namespaces and workloads get their own check (MG341).
	docs := make([]lint.Document, 0, len(read.Docs)+len(read.Inventory))
	docs = append(docs, read.Docs...)
	docs = append(docs, read.Inventory...)
	res := Result{Policies: len(read.Docs), Inventory: len(read.Inventory), Skipped: read.Skipped, objects: make(map[ref]objectInfo, len(docs))}
	for _, d := range docs {
		u := d.Object
		res.objects[ref{u.GetAPIVersion(), u.GetKind(), u.GetNamespace(), u.GetName()}] = objectInfo{uid: string(u.GetUID()), resourceVersion: u.GetResourceVersion()}
	}
	lo := o.Lint
	lo.Stages = lint.CrossDocumentInventory(lo.Settings, lo.Namespace, &lint.Inventory{Cluster: true, Objects: dataplanes})
	if lo.Privileged == nil {
		lo.Privileged = SyncedBy(lo.Settings.Mode)
	}
	res.Findings, res.Summary = lint.Lint(docs, lo)
	res.Summary.Documents = res.Policies
	return res, nil
}

// dataplanesGVR is Kuma's Dataplane resource, which the audit lists besides the
// registry's policies and the inventory.
func dataplanesGVR() schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: api.KumaGroup, Version: "v1alpha1", Resource: "dataplanes"}
}

// SyncedBy says which stored objects a Kuma control plane wrote: on a zone, those
// of origin global (synced down from the global control plane); on a global, those
// of origin zone (synced up from the zones). The webhook admits them as privileged
// writes (the sync runs as a privileged user) and so does the audit: judged as a
// user's, they would all draw the origin and owned-label errors a user gets.
func SyncedBy(mode api.Mode) func(*unstructured.Unstructured) bool {
	other := ""
	switch mode {
	case api.ModeZone:
		other = api.OriginGlobal
	case api.ModeGlobal:
		other = api.OriginZone
	}
	return func(u *unstructured.Unstructured) bool {
		return other != "" && u.GetLabels()[api.LabelOrigin] == other
	}
}

// Describe is what the command prints on standard error after an audit: what
// was read, and what was not, unserved kinds grouped by API group (a cluster
// without Linkerd does not serve a dozen of them) and forbidden ones by name.
func (r Result) Describe() []string {
	out := []string{fmt.Sprintf("audited %d stored policies (and %d Namespaces, Services, ServiceAccounts and workloads for the cross-object checks)", r.Policies, r.Inventory)}
	unserved := map[string][]string{}
	var groups []string
	for _, s := range r.Skipped {
		if !strings.HasPrefix(s.Reason, "not served") {
			out = append(out, fmt.Sprintf("not read: %s (%s): %s", s.Kind, s.Resource, s.Reason))
			continue
		}
		g := s.Resource
		if i := strings.IndexByte(g, '.'); i >= 0 {
			g = g[i+1:]
		}
		g, _, _ = strings.Cut(g, "/")
		if _, ok := unserved[g]; !ok {
			groups = append(groups, g)
		}
		unserved[g] = append(unserved[g], s.Kind)
	}
	for _, g := range groups {
		out = append(out, fmt.Sprintf("not served by the cluster (CRDs not installed), not read: %s %s", g, strings.Join(unserved[g], ", ")))
	}
	return out
}
