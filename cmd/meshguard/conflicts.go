package main

import (
	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/linkerd"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

// composeExtra runs several cross-document stages in order and joins their findings.
func composeExtra(stages ...func([]lint.Checked) []lint.Finding) func([]lint.Checked) []lint.Finding {
	return func(objs []lint.Checked) []lint.Finding {
		var out []lint.Finding
		for _, s := range stages {
			out = append(out, s(objs)...)
		}
		return out
	}
}

// serverConflicts returns lint's Linkerd Server conflict stage (MG350): Servers of
// the linted set, across all files, that can select the same pod on the same port.
// Named ports are resolved against the pod templates of the set's workloads. Each
// Server involved gets a finding naming the other one; Servers the webhook would
// deny are left out. ns is the namespace of documents that name none.
func serverConflicts(s api.Settings, ns string) func([]lint.Checked) []lint.Finding {
	return func(objs []lint.Checked) []lint.Finding {
		var servers []linkerd.Server
		var docs []*lint.Document
		var workloads []linkerd.Workload
		for _, c := range objs {
			if c.Kind == nil {
				if w, ok := linkerd.WorkloadFromObject(c.Object); ok {
					if w.Namespace == "" {
						w.Namespace = ns
					}
					workloads = append(workloads, w)
				}
				continue
			}
			if c.Kind.Group != api.LinkerdGroup || c.Kind.Kind != "Server" {
				continue
			}
			sv, ok := linkerd.ServerFromObject(c.Object)
			if !ok {
				continue
			}
			if c.Denied {
				continue // denied Servers never exist
			}
			servers = append(servers, sv)
			docs = append(docs, c.Doc)
		}
		if len(servers) < 2 {
			return nil
		}
		var out []lint.Finding
		for _, c := range linkerd.Conflicts(servers, workloads) {
			out = append(out, conflictFinding(docs[c.A], servers[c.A], servers[c.B], c.Port),
				conflictFinding(docs[c.B], servers[c.B], servers[c.A], c.Port))
		}
		return out
	}
}

// conflictFinding reports self's side of a conflict on its selector (the port is in
// the message).
func conflictFinding(d *lint.Document, self, other linkerd.Server, port string) lint.Finding {
	path := "spec.podSelector"
	if self.External {
		path = "spec.externalWorkloadSelector"
	}
	return lint.FindingFor(d, validate.SeverityWarning, validate.CodeLinkerdServerConflict, path,
		linkerd.Message(self.Name, other.Name, port))
}
