package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
)

// producerExample is the object whose full before/after the tour shows: a producer
// policy that leaves both the top-level targetRef and the namespace of its
// MeshService implied (Kuma's policy-on-namespace MADR sugar).
var producerExample = struct{ kind, namespace, name string }{api.KindMeshTimeout, "backend-ns", "backend-timeouts"}

// valid applies examples/valid/ and shows what the mutating webhook stored.
func (d *demo) valid(ctx context.Context) error {
	d.p.heading("1. Valid policies: applied, and what meshguard's mutating webhook stored")
	dir := filepath.Join("examples", "valid") + "/"
	if _, ok := d.kubectl(ctx, "apply", "-f", dir); !ok {
		d.failf("kubectl apply -f %s failed", dir)
		return nil
	}
	d.p.note("  (the Warning: lines are the RBAC preview meshguard gives for each MeshTrafficPermission, see 3.)")
	docs, err := readDocs(filepath.Join(d.Root, dir))
	if err != nil {
		return err
	}
	d.p.line("")
	d.p.line("%s", d.p.cmd("kubectl get -f "+dir+" -o json")+d.p.dim("   # compared with the files, per object:"))
	out, ok := d.kubectlQuiet(ctx, nil, "get", "-f", dir, "-o", "json")
	if !ok {
		d.p.output(out)
		d.failf("kubectl get -f %s failed", dir)
		return nil
	}
	var list struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		return fmt.Errorf("kubectl get -o json: %w", err)
	}
	stored := map[string]map[string]any{}
	for _, it := range list.Items {
		stored[key(it)] = it
	}
	var producer [2]map[string]any
	for _, doc := range docs {
		after, ok := stored[key(doc.obj)]
		if !ok {
			d.failf("%s was not stored", doc.ref())
			continue
		}
		clean := cleanStored(after)
		d.p.line("  %s %s", d.p.bold(doc.ref()), d.p.dim("("+filepath.Base(doc.file)+")"))
		d.showChanges(doc.obj, clean)
		labels := labelsOf(clean)
		for _, l := range []string{"kuma.io/mesh", "kuma.io/policy-role"} {
			if labels[l] == "" {
				d.failf("%s: stored without label %s", doc.ref(), l)
			}
		}
		if doc.kind() == producerExample.kind && doc.namespace() == producerExample.namespace && doc.name() == producerExample.name {
			producer = [2]map[string]any{doc.obj, clean}
		}
	}
	if producer[0] == nil {
		d.failf("%s %s/%s is not in examples/valid", producerExample.kind, producerExample.namespace, producerExample.name)
		return nil
	}
	d.p.sub(fmt.Sprintf("Before/after of a producer policy (%s %s/%s)", producerExample.kind, producerExample.namespace, producerExample.name))
	d.p.line("%s", d.p.cmd(fmt.Sprintf("kubectl get %s %s -n %s -o yaml", strings.ToLower(producerExample.kind), producerExample.name, producerExample.namespace)))
	d.p.note("  - the file  + what the cluster stored   (uid, resourceVersion, managedFields, last-applied hidden)")
	before, _ := yaml.Marshal(producer[0])
	after, _ := yaml.Marshal(producer[1])
	for _, l := range lineDiff(strings.Split(strings.TrimRight(string(before), "\n"), "\n"), strings.Split(strings.TrimRight(string(after), "\n"), "\n")) {
		d.p.diffLine(l)
	}
	return nil
}

// showChanges prints the leaf fields the cluster added, changed or dropped, labels
// on one line and spec fields on another.
func (d *demo) showChanges(before, after map[string]any) {
	b, a := flatten(before), flatten(after)
	var labels, spec, other []string
	for _, p := range unionKeys(b, a) {
		bv, inB := b[p]
		av, inA := a[p]
		var s string
		switch {
		case inA && !inB:
			s = d.p.green("+" + short(p) + "=" + av)
		case inB && !inA:
			s = d.p.red("-" + short(p) + "=" + bv)
		case av != bv:
			s = d.p.yellow("~" + short(p) + "=" + bv + "→" + av)
		default:
			continue
		}
		switch {
		case strings.HasPrefix(p, "metadata.labels"):
			labels = append(labels, s)
		case strings.HasPrefix(p, "spec."):
			spec = append(spec, s)
		default:
			other = append(other, s)
		}
	}
	if len(labels)+len(spec)+len(other) == 0 {
		d.p.line("    %s", d.p.dim("stored as written"))
	}
	for _, g := range []struct {
		name string
		ch   []string
	}{{"labels", labels}, {"spec", spec}, {"other", other}} {
		if len(g.ch) > 0 {
			d.p.line("    %-7s %s", g.name, strings.Join(g.ch, "  "))
		}
	}
}

// short drops the section prefix of a flattened path for the compact summary:
// metadata.labels[kuma.io/mesh] → kuma.io/mesh, spec.to[0].x → to[0].x.
func short(p string) string {
	if s, ok := strings.CutPrefix(p, "metadata.labels["); ok {
		return strings.TrimSuffix(s, "]")
	}
	return strings.TrimPrefix(p, "spec.")
}

// invalid applies each file of examples/invalid/ and checks kubectl's denial against
// the file's "# expect: CODE path" lines.
func (d *demo) invalid(ctx context.Context) error {
	d.p.heading("2. Invalid policies: what kubectl users see when meshguard denies them")
	files, err := filepath.Glob(filepath.Join(d.Root, "examples", "invalid", "*.yaml"))
	if err != nil {
		return err
	}
	denied := 0
	for _, f := range files {
		rel := filepath.Join("examples", "invalid", filepath.Base(f))
		why, expects, err := expectations(f)
		if err != nil {
			return err
		}
		d.p.sub(rel + d.p.dim("  — "+why))
		out, ok := d.kubectl(ctx, "apply", "-f", rel)
		if ok {
			d.failf("%s was admitted; it should be denied", rel)
			continue
		}
		if !strings.Contains(out, "is invalid") {
			d.failf("%s failed, but not with a 422 Invalid", rel)
			continue
		}
		denied++
		if !strings.Contains(out, "[MG") {
			// The CRD's structural schema runs before validating webhooks: a wrong
			// type never reaches meshguard in a cluster. The linter still names it.
			d.p.line("  %s", d.p.yellow("↳ denied by the API server's CRD schema validation, which runs before validating webhooks;"))
			d.p.line("  %s", d.p.yellow("  the linter gives meshguard's own finding for the same file:"))
			out = d.lint(ctx, rel)
		}
		for _, e := range expects {
			if reports(out, e) {
				d.p.good(fmt.Sprintf("%s at %s, as the file's '# expect:' says", e.code, e.path))
			} else {
				d.failf("%s: expected %s at %s in the output", rel, e.code, e.path)
			}
		}
	}
	d.p.line("")
	d.p.line("%d of %d invalid files denied.", denied, len(files))
	return nil
}

// reports tells whether one line of kubectl's denial ("path: … [CODE]") or of
// meshguard lint's output ("severity CODE path: …") names e's code at e's path.
func reports(out string, e expectation) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, e.path+":") && (strings.Contains(l, "["+e.code+"]") || strings.Contains(l, " "+e.code+" ")) {
			return true
		}
	}
	return false
}

// lint runs the meshguard binary the stack serves with on file, offline.
func (d *demo) lint(ctx context.Context, file string) string {
	out, _, _ := d.meshguard(ctx, "lint", file) // exit code 1: findings
	return out
}

// shownBin is the meshguard binary the stack serves with, as the tour shows it:
// relative to the repository when it is inside.
func (d *demo) shownBin() string {
	bin := d.st.Meshguard.Bin
	if rel, err := filepath.Rel(d.Root, bin); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return bin
}

// meshguard runs that binary offline in the repository with args, showing the
// command and its output (standard output and error together): code is its exit
// code, err a failure to run it at all.
func (d *demo) meshguard(ctx context.Context, args ...string) (out string, code int, err error) {
	d.p.line("%s", d.p.cmd(d.shownBin()+" "+strings.Join(args, " ")))
	cmd := exec.CommandContext(ctx, d.st.Meshguard.Bin, args...)
	cmd.Dir = d.Root
	b, err := cmd.CombinedOutput()
	d.p.output(string(b))
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(b), ee.ExitCode(), nil
	}
	return string(b), 0, err
}

// previewPolicy is the MeshTrafficPermission the tour dry-runs: backend's owner lets
// an ops tool in. The preview merges it with the stored permissions of the same
// proxies (backend-permissions, mesh-deny-default).
const previewPolicy = `# Dry-run by the demo: backend's owner lets the ops console call backend.
apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: backend-allow-ops
  namespace: backend-ns
spec:
  targetRef:
    kind: Dataplane
    labels:
      app: backend
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: ops-console_ops-ns_svc_8080
      default:
        action: Allow
`

// maxAnnotationLines bounds the pretty-printed audit annotation in the terminal;
// annotationWidth is the width under which a JSON value stays on one line.
const (
	maxAnnotationLines = 40
	annotationWidth    = 120
)

// preview dry-runs a MeshTrafficPermission and shows the RBAC preview twice: as the
// warnings kubectl prints and as the audit annotation the API server logged.
func (d *demo) preview(ctx context.Context) error {
	d.p.heading("3. RBAC preview: kubectl apply --dry-run=server of a MeshTrafficPermission")
	file := filepath.Join(d.Dir, "preview-mtp.yaml")
	if err := os.WriteFile(file, []byte(previewPolicy), 0o644); err != nil {
		return err
	}
	arg := file
	if rel, err := filepath.Rel(d.Root, file); err == nil && !strings.HasPrefix(rel, "..") {
		arg = rel
	}
	d.p.line("%s", d.p.cmd("cat "+arg))
	d.p.output(previewPolicy)
	sent := time.Now().Add(-time.Second)
	out, ok := d.kubectl(ctx, "apply", "--dry-run=server", "-f", arg)
	if !ok {
		d.failf("the dry run of %s was refused", arg)
		return nil
	}
	if !strings.Contains(out, "Warning:") {
		d.failf("no Warning: lines in the dry run's output")
	}
	d.p.line("%s", d.p.cmd("kubectl get meshtrafficpermission backend-allow-ops -n backend-ns")+d.p.dim("   # a dry run stores nothing"))
	got, _ := d.kubectlQuiet(ctx, nil, "get", "meshtrafficpermission", "backend-allow-ops", "-n", "backend-ns")
	d.p.output(got)

	d.p.sub("The rbac-preview audit annotation (API server audit log " + d.st.CP.AuditLog + ")")
	var ev auditEvent
	err := waitFor(ctx, 10*time.Second, func() (bool, error) {
		var err error
		ev, ok, err = findPreview(d.st.CP.AuditLog, "backend-ns", "backend-allow-ops", sent)
		return ok, err
	})
	if err != nil {
		d.failf("no rbac-preview annotation in %s: %v", d.st.CP.AuditLog, err)
		return nil
	}
	d.p.note("  event %s: %s %s %s/%s (dryRun), annotation %q", ev.AuditID, ev.Verb, ev.ObjectRef.Resource, ev.ObjectRef.Namespace, ev.ObjectRef.Name, ev.key)
	pretty := ev.value
	var b strings.Builder
	if err := renderJSON(&b, json.RawMessage(ev.value), "", annotationWidth); err == nil {
		pretty = b.String()
	}
	lines := strings.Split(pretty, "\n")
	if len(lines) > maxAnnotationLines {
		more := len(lines) - maxAnnotationLines
		lines = append(lines[:maxAnnotationLines], fmt.Sprintf("… %d more lines; the whole event: grep backend-allow-ops %s", more, d.st.CP.AuditLog))
	}
	d.p.output(strings.Join(lines, "\n"))
	return nil
}

// auditEvent is the part of an audit.k8s.io/v1 Event the demo reads.
type auditEvent struct {
	AuditID   string `json:"auditID"`
	Stage     string `json:"stage"`
	Verb      string `json:"verb"`
	ObjectRef struct {
		Resource, Namespace, Name string
	} `json:"objectRef"`
	Annotations       map[string]string `json:"annotations"`
	RequestReceivedTS time.Time         `json:"requestReceivedTimestamp"`
	key, value        string
}

// findPreview returns the last ResponseComplete event for the named
// MeshTrafficPermission, received after since, that carries an rbac-preview
// annotation (the API server prefixes the key with the webhook's name).
func findPreview(path, ns, name string, since time.Time) (auditEvent, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return auditEvent{}, false, err
	}
	defer f.Close()
	var found auditEvent
	ok := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if !strings.Contains(sc.Text(), "rbac-preview") {
			continue
		}
		var ev auditEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Stage != "ResponseComplete" {
			continue
		}
		if ev.ObjectRef.Resource != "meshtrafficpermissions" || ev.ObjectRef.Namespace != ns || ev.RequestReceivedTS.Before(since) {
			continue
		}
		if ev.ObjectRef.Name != "" && ev.ObjectRef.Name != name {
			continue
		}
		keys := make([]string, 0, len(ev.Annotations))
		for k := range ev.Annotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "rbac-preview" || strings.HasSuffix(k, "/rbac-preview") {
				ev.key, ev.value = k, ev.Annotations[k]
				found, ok = ev, true
			}
		}
	}
	return found, ok, sc.Err()
}

// waitFor polls cond every 200ms until it is true, fails, or timeout passes.
func waitFor(ctx context.Context, timeout time.Duration, cond func() (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return err
			}
			return fmt.Errorf("not found within %s", timeout)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// diff shows `meshguard diff` on the change section 3 dry-ran: examples/valid/
// with and without backend-allow-ops, compared by who may call whom.
func (d *demo) diff(ctx context.Context) error {
	d.p.heading("4. meshguard diff: what a change opens up, before it is applied")
	after := filepath.Join(d.Dir, "diff-after")
	if err := os.MkdirAll(after, 0o755); err != nil {
		return err
	}
	valid := filepath.Join(d.Root, "examples", "valid")
	files, err := filepath.Glob(filepath.Join(valid, "*.yaml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(after, filepath.Base(f)), b, 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(after, "07-backend-allow-ops.yaml"), []byte(previewPolicy), 0o644); err != nil {
		return err
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(d.Root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	d.p.note("  (%s is examples/valid/ plus the policy of section 3)", rel(after))
	d.p.line("%s", d.p.cmd(rel(d.st.Meshguard.Bin)+" diff --fail-on widen examples/valid/ "+rel(after)))
	cmd := exec.CommandContext(ctx, d.st.Meshguard.Bin, "diff", "--fail-on", "widen", "examples/valid/", after)
	cmd.Dir = d.Root
	out, err := cmd.CombinedOutput()
	d.p.output(string(out))
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "widened") {
		d.failf("meshguard diff did not report the widening with exit code 1 (%v)", err)
	}
	return nil
}
