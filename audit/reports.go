package audit

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

// Format is the report API an audit writes.
type Format string

// The report APIs: OpenReports (openreports.io/v1alpha1 Report and
// ClusterReport, which Kyverno 1.15 writes) and the wg-policy API it replaces
// (wgpolicyk8s.io/v1alpha2 PolicyReport and ClusterPolicyReport), which older
// dashboards and policy-reporter read.
const (
	FormatOpenReports Format = "openreports"
	FormatWGPolicy    Format = "wgpolicy"
)

// Reports are the names and labels of meshguard's report objects.
const (
	// ReportName is the name of the one report per namespace (and the one cluster
	// report) meshguard writes.
	ReportName = "meshguard"
	// Source is the source of every result, how dashboards tell engines apart.
	Source = "meshguard"
	// FieldManager owns the reports' fields under server-side apply.
	FieldManager = "meshguard-audit"
	// ManagedByLabel marks meshguard's reports, so stale ones can be found.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	managedBy      = "meshguard"
	// DefaultMaxResults bounds the results of one report: an object in etcd is at
	// most 1.5 MiB, and a result is a few hundred bytes.
	DefaultMaxResults = 2000
)

// Valid reports whether f names a report API.
func (f Format) Valid() bool { return f == FormatOpenReports || f == FormatWGPolicy }

// gvrs are the namespaced and cluster report resources of f.
func (f Format) gvrs() (ns, cluster schema.GroupVersionResource, nsKind, clusterKind string) {
	if f == FormatWGPolicy {
		g := schema.GroupVersion{Group: "wgpolicyk8s.io", Version: "v1alpha2"}
		return g.WithResource("policyreports"), g.WithResource("clusterpolicyreports"), "PolicyReport", "ClusterPolicyReport"
	}
	g := schema.GroupVersion{Group: "openreports.io", Version: "v1alpha1"}
	return g.WithResource("reports"), g.WithResource("clusterreports"), "Report", "ClusterReport"
}

// ReportOptions say how reports are built.
type ReportOptions struct {
	Format Format
	// Namespaces are the namespaces the audit covered; empty means all. Reports
	// of namespaces outside them are left alone; inside them, a namespace with no
	// audited object loses its report.
	Namespaces []string
	// MaxResults bounds the results of one report (0: DefaultMaxResults); the
	// summary still counts every finding.
	MaxResults int
	// Now is the results' timestamp.
	Now time.Time
}

// Build returns one report per namespace that holds an audited policy, and a
// cluster report for cluster-scoped objects when any were audited, keyed by
// namespace ("" for the cluster report).
func Build(r Result, o ReportOptions) map[string]*unstructured.Unstructured {
	_, _, nsKind, clusterKind := o.Format.gvrs()
	apiVersion := "openreports.io/v1alpha1"
	if o.Format == FormatWGPolicy {
		apiVersion = "wgpolicyk8s.io/v1alpha2"
	}
	max := o.MaxResults
	if max <= 0 {
		max = DefaultMaxResults
	}
	type acc struct {
		results                []any
		pass, fail, warn, skip int64
		objects                map[ref]bool
	}
	byNS := map[string]*acc{}
	get := func(ns string) *acc {
		a := byNS[ns]
		if a == nil {
			a = &acc{objects: map[ref]bool{}}
			byNS[ns] = a
		}
		return a
	}
	// Every audited policy counts once as pass unless it has a finding; the
	// inventory only appears when it has findings.
	failing := map[ref]bool{}
	// Errors first, so a report cut at max keeps what the mesh refuses.
	ordered := slices.Clone(r.Findings)
	slices.SortStableFunc(ordered, func(a, b lint.Finding) int {
		return cmp.Compare(rank(a), rank(b))
	})
	for _, f := range ordered {
		if f.Kind == "" {
			continue
		}
		id := ref{f.APIVersion, f.Kind, f.Namespace, f.Name}
		a := get(f.Namespace)
		res := result(f, id, r.objects[id], o.Now)
		switch res["result"] {
		case "fail":
			a.fail++
			failing[id] = true
		case "warn":
			a.warn++
			failing[id] = true
		default:
			a.skip++
		}
		if len(a.results) < max {
			a.results = append(a.results, res)
		}
	}
	for id := range r.objects {
		if isPolicy(id) && !failing[id] {
			get(id.namespace).pass++
		}
	}
	out := map[string]*unstructured.Unstructured{}
	for ns, a := range byNS {
		kind := nsKind
		if ns == "" {
			kind = clusterKind
		}
		summary := map[string]any{"pass": a.pass, "fail": a.fail, "warn": a.warn, "error": int64(0), "skip": a.skip}
		out[ns] = newReport(o.Format, apiVersion, kind, ns, summary, a.results)
	}
	return out
}

// newReport is one report object, its results sorted.
func newReport(f Format, apiVersion, kind, ns string, summary map[string]any, results []any) *unstructured.Unstructured {
	if results == nil {
		results = []any{}
	}
	sortResults(results)
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": ReportName, "labels": map[string]any{ManagedByLabel: managedBy}},
		"summary":  summary,
		"results":  results,
	}}
	if f == FormatOpenReports {
		u.Object["source"] = Source
	}
	if ns != "" {
		u.SetNamespace(ns)
	}
	return u
}

// rank orders findings for a report cut short: errors, warnings, suppressed.
func rank(f lint.Finding) int {
	switch {
	case f.Suppression != nil:
		return 2
	case f.Severity == validate.SeverityError:
		return 0
	}
	return 1
}

// isPolicy tells registry objects from inventory ones: the inventory's kinds
// are core, apps and batch kinds, the registry's are not.
func isPolicy(id ref) bool {
	switch id.apiVersion {
	case "v1", "apps/v1", "batch/v1":
		return false
	}
	return true
}

// result is one report result of a finding: policy is the code, rule the field
// path, result fail (error), warn (warning) or skip (suppressed, with the
// reason in properties).
func result(f lint.Finding, id ref, info objectInfo, now time.Time) map[string]any {
	res, severity := "warn", "medium"
	if f.Severity == validate.SeverityError {
		res, severity = "fail", "high"
	}
	props := map[string]any{"severity": f.Severity}
	if f.Field != "" {
		props["field"] = f.Field
	}
	if s := f.Suppression; s != nil {
		res = "skip"
		props["suppressed"] = s.Kind
		props["justification"] = s.Justification
		props["suppressedBy"] = s.Source
	}
	resource := map[string]any{"apiVersion": id.apiVersion, "kind": id.kind, "name": id.name}
	if id.namespace != "" {
		resource["namespace"] = id.namespace
	}
	if info.uid != "" {
		resource["uid"] = info.uid
	}
	rule := f.Field
	if rule == "" {
		rule = f.Code
	}
	return map[string]any{
		"source": Source, "policy": f.Code, "rule": rule, "category": category(id),
		"severity": severity, "result": res, "scored": true, "message": f.Message,
		"timestamp":  map[string]any{"seconds": now.Unix(), "nanos": int64(0)},
		"resources":  []any{resource},
		"properties": props,
	}
}

func category(id ref) string {
	gv, _ := schema.ParseGroupVersion(id.apiVersion)
	switch gv.Group {
	case api.KumaGroup:
		return "Kuma"
	case api.LinkerdGroup:
		return "Linkerd"
	case api.GatewayGroup:
		return "Gateway API"
	}
	return "Kubernetes"
}

func sortResults(rs []any) {
	key := func(r any) string {
		m := r.(map[string]any)
		res := m["resources"].([]any)[0].(map[string]any)
		return fmt.Sprint(res["kind"], "/", res["name"], "/", m["policy"], "/", m["rule"])
	}
	sort.SliceStable(rs, func(i, j int) bool { return key(rs[i]) < key(rs[j]) })
}

// Written says what Write did.
type Written struct {
	Applied, Deleted []string
}

// Write applies the reports (server-side apply, field manager FieldManager, so
// results that are gone are gone from the object too) and deletes meshguard's
// reports of covered namespaces that no longer hold an audited object.
func Write(ctx context.Context, dyn dynamic.Interface, reports map[string]*unstructured.Unstructured, o ReportOptions) (Written, error) {
	nsGVR, clusterGVR, _, _ := o.Format.gvrs()
	var w Written
	keys := make([]string, 0, len(reports))
	for k := range reports {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// A few applies at once: each is a round trip in which the API server merges
	// a list of up to MaxResults results.
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxConcurrentWrites)
	for i, ns := range keys {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			u := reports[ns]
			var res dynamic.ResourceInterface = dyn.Resource(clusterGVR)
			if ns != "" {
				res = dyn.Resource(nsGVR).Namespace(ns)
			}
			if _, err := res.Apply(ctx, ReportName, u, metav1.ApplyOptions{FieldManager: FieldManager, Force: true}); err != nil {
				errs[i] = fmt.Errorf("writing the %s of namespace %q: %w%s", u.GetKind(), ns, err, crdHint(err, o.Format))
			}
		})
	}
	wg.Wait()
	for i, ns := range keys {
		if errs[i] != nil {
			return w, errs[i]
		}
		w.Applied = append(w.Applied, place(ns, reports[ns].GetKind()))
	}
	stale, err := staleReports(ctx, dyn, reports, o)
	if err != nil {
		return w, err
	}
	for _, s := range stale {
		var res dynamic.ResourceInterface = dyn.Resource(clusterGVR)
		if s.ns != "" {
			res = dyn.Resource(nsGVR).Namespace(s.ns)
		}
		if err := res.Delete(ctx, s.name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return w, fmt.Errorf("deleting the stale report %s: %w", place(s.ns, s.name), err)
		}
		w.Deleted = append(w.Deleted, place(s.ns, s.name))
	}
	return w, nil
}

// maxConcurrentWrites bounds the report applies in flight.
const maxConcurrentWrites = 4

type staleReport struct{ ns, name string }

// staleReports lists meshguard's reports that this audit did not write, in the
// namespaces it covered.
func staleReports(ctx context.Context, dyn dynamic.Interface, written map[string]*unstructured.Unstructured, o ReportOptions) ([]staleReport, error) {
	nsGVR, clusterGVR, _, _ := o.Format.gvrs()
	covered := func(ns string) bool {
		if len(o.Namespaces) == 0 {
			return true
		}
		for _, n := range o.Namespaces {
			if n == ns {
				return true
			}
		}
		return false
	}
	// By name as well as label: the chart's audit role may list, read and delete
	// reports named ReportName only (RBAC resourceNames, which the API server
	// applies to a list with this field selector), never other engines' reports.
	sel := metav1.ListOptions{LabelSelector: ManagedByLabel + "=" + managedBy, FieldSelector: "metadata.name=" + ReportName}
	var out []staleReport
	list, err := dyn.Resource(nsGVR).List(ctx, sel)
	if err != nil {
		return nil, fmt.Errorf("listing meshguard's reports: %w%s", err, crdHint(err, o.Format))
	}
	for _, u := range list.Items {
		if _, ok := written[u.GetNamespace()]; !ok && covered(u.GetNamespace()) && u.GetName() == ReportName {
			out = append(out, staleReport{u.GetNamespace(), u.GetName()})
		}
	}
	if len(o.Namespaces) == 0 {
		list, err = dyn.Resource(clusterGVR).List(ctx, sel)
		if err != nil {
			return nil, fmt.Errorf("listing meshguard's cluster reports: %w", err)
		}
		for _, u := range list.Items {
			if _, ok := written[""]; !ok && u.GetName() == ReportName {
				out = append(out, staleReport{"", u.GetName()})
			}
		}
	}
	return out, nil
}

func place(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// crdHint says how to install the report CRDs when the API server does not
// serve them.
func crdHint(err error, f Format) string {
	if !apierrors.IsNotFound(err) {
		return ""
	}
	return fmt.Sprintf(" (the %s CRDs are not installed: install the chart with audit.reports.installCRDs=true, or see docs/audit.md)", f)
}
