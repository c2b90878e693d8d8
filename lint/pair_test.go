package lint

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/schema"
)

// pairDocs are documents of every sort a diff reads: admitted and denied
// policies of both meshes, Universal documents, an unreadable one, YAML that is
// not a Kubernetes object, and the objects around Linkerd policies.
var pairDocs = map[string]string{
	"mtp": "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: ok, namespace: kuma-system}\n" +
		"spec:\n  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Mesh}, default: {action: Allow}}]\n",
	"mtp-denied": "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\nmetadata: {name: denied, namespace: kuma-system}\n" +
		"spec:\n  targetRef: {kind: Mesh}\n  from: [{targetRef: {kind: Mesh}, default: {action: Maybe}}]\n",
	"timeout": "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: t}\nspec:\n  targetRef: {kind: Mesh}\n" +
		"  to: [{targetRef: {kind: Mesh}, default: {connectionTimeout: 5s}}]\n",
	"timeout-denied": "apiVersion: kuma.io/v1alpha1\nkind: MeshTimeout\nmetadata: {name: bad}\nspec:\n  targetRef: {kind: Mesh}\n" +
		"  to: [{targetRef: {kind: Mesh}, default: {connectionTimeout: soon}}]\n",
	"universal": "type: MeshRetry\nname: r\nmesh: default\nspec:\n  targetRef: {kind: Mesh}\n" +
		"  to: [{targetRef: {kind: Mesh}, default: {http: {numRetries: 3}}}]\n",
	"dataplane": "type: Dataplane\nname: dp-1\nmesh: default\nnetworking:\n  address: 10.0.0.1\n" +
		"  inbound: [{port: 8080, tags: {kuma.io/service: web}}]\n",
	"identity": "apiVersion: kuma.io/v1alpha1\nkind: MeshIdentity\nmetadata: {name: id, namespace: kuma-system}\n" +
		"spec:\n  selector: {dataplane: {matchLabels: {}}}\n  spiffeID: {trustDomain: mesh.local}\n  provider: {type: Bundled, bundled: {meshTrustCreation: Enabled, autogenerate: {enabled: true}}}\n",
	"server":        "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: web}\nspec: {podSelector: {matchLabels: {app: web}}, port: 8080}\n",
	"server-denied": "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: bad}\nspec: {port: 8080}\n",
	"deployment":    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n",
	"broken":        "kind: [unclosed\n",
	"values":        "replicas: 3\n",
}

// pairFile joins the named documents of pairDocs into one file.
func pairFile(names ...string) string {
	var parts []string
	for _, n := range names {
		parts = append(parts, pairDocs[n])
	}
	return strings.Join(parts, "---\n")
}

// TestLoadPairIsLoadAll: each side of LoadPair is what LoadAll reads of it
// (files, indexes, lines, errors, skipped documents, objects and the lines of
// their fields), and Preview and KumaObjects, run on both sides at once as diff
// runs them, answer as they answer on separate loads, their notes naming each
// side's own lines; the documents the sides share are read once.
func TestLoadPairIsLoadAll(t *testing.T) {
	oldFile := pairFile("mtp", "broken", "timeout", "timeout-denied", "values", "universal", "dataplane", "identity", "server", "server-denied", "deployment")
	// NEW: a document more at the top (every line moves), one policy changed,
	// one document twice and the Dataplane in a second file.
	changed := strings.Replace(pairDocs["timeout"], "5s", "2s", 1)
	newFile := pairDocs["mtp-denied"] + "---\n" + pairDocs["mtp"] + "---\n# a comment\n" + pairDocs["broken"] + "---\n" + changed +
		"---\n" + pairFile("timeout-denied", "values", "universal", "universal", "identity", "server", "server-denied", "deployment")
	root := tree(t, map[string]string{
		"old/mesh.yaml": oldFile,
		"new/mesh.yaml": newFile,
		"new/dp.yaml":   pairDocs["dataplane"],
	})
	oldDir, newDir := filepath.Join(root, "old"), filepath.Join(root, "new")
	o := engineOptions()
	if err := schema.LoadInto(&o.Settings); err != nil {
		t.Fatal(err)
	}

	pairOld, pairNew := LoadPair([]string{oldDir}, []string{newDir}, LoadOptions{})
	aloneOld, aloneNew := LoadAll([]string{oldDir}, nil, LoadOptions{}), LoadAll([]string{newDir}, nil, LoadOptions{})
	shared := 0
	for i := range pairNew.Docs {
		for j := range pairOld.Docs {
			if o := pairNew.Docs[i].Object; o != nil && o == pairOld.Docs[j].Object {
				shared++
			}
		}
	}
	// mtp (first in OLD's file, after "---" in NEW's), timeout-denied,
	// universal (once), identity, server, server-denied, deployment and the
	// Dataplane (the first of its file in NEW); not broken, not the changed
	// timeout.
	if shared != 8 {
		t.Errorf("%d objects shared between the sides, want 8", shared)
	}

	var wg sync.WaitGroup
	var got [2]pairView
	for i, l := range []Loaded{pairOld, pairNew} {
		wg.Go(func() { got[i] = viewOf(l, o, true) })
	}
	wg.Wait()
	for i, l := range []Loaded{aloneOld, aloneNew} {
		want := viewOf(l, o, true)
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("side %d: LoadPair differs from LoadAll (-LoadAll +LoadPair):\n%s", i, diff)
		}
	}
	if !strings.Contains(strings.Join(got[1].Notes, "\n"), "new/mesh.yaml:1: skipped kuma-system/denied") {
		t.Errorf("NEW's notes do not name its own denied policy:\n%s", strings.Join(got[1].Notes, "\n"))
	}
}

// TestLoadPairNoFieldLines: with LoadOptions.NoFieldLines, LoadPair and
// LoadAll keep no document's node tree, and each side reads as it reads with
// the trees (lines, the line of metadata.name, notes naming where a duplicate
// is defined, objects), LineOf answering the document's line for other fields.
func TestLoadPairNoFieldLines(t *testing.T) {
	oldFile := pairFile("mtp", "broken", "timeout", "values", "universal", "dataplane", "server", "deployment")
	newFile := pairDocs["mtp-denied"] + "---\n" + strings.Replace(pairFile("mtp", "timeout", "universal", "universal", "server", "deployment"), "5s", "2s", 1)
	root := tree(t, map[string]string{"old/mesh.yaml": oldFile, "new/mesh.yaml": newFile, "new/dp.yaml": pairDocs["dataplane"]})
	oldDir, newDir := filepath.Join(root, "old"), filepath.Join(root, "new")
	o := engineOptions()
	if err := schema.LoadInto(&o.Settings); err != nil {
		t.Fatal(err)
	}
	noLines := LoadOptions{NoFieldLines: true}
	pairOld, pairNew := LoadPair([]string{oldDir}, []string{newDir}, noLines)
	sides := []struct {
		name          string
		with, without Loaded
	}{
		{"old", LoadAll([]string{oldDir}, nil, LoadOptions{}), pairOld},
		{"new", LoadAll([]string{newDir}, nil, LoadOptions{}), pairNew},
		{"old alone", LoadAll([]string{oldDir}, nil, LoadOptions{}), LoadAll([]string{oldDir}, nil, noLines)},
	}
	for _, side := range sides {
		for i := range side.without.Docs {
			d := &side.without.Docs[i]
			if d.lines.node != nil {
				t.Errorf("%s: %s line %d keeps its node tree", side.name, d.File, d.Line)
			}
			if d.Object != nil && d.LineOf("spec.to[0]") != d.Line {
				t.Errorf("%s: %s line %d: LineOf(spec.to[0]) = %d, want the document's line", side.name, d.File, d.Line, d.LineOf("spec.to[0]"))
			}
		}
		if diff := cmp.Diff(viewOf(side.with, o, false), viewOf(side.without, o, false)); diff != "" {
			t.Errorf("%s: NoFieldLines changes what is read (-with trees +without):\n%s", side.name, diff)
		}
	}
	if notes := strings.Join(viewOf(pairNew, o, false).Notes, "\n"); !strings.Contains(notes, "defined again at") {
		t.Errorf("NEW's notes say nothing of its duplicate:\n%s", notes)
	}
}

// pairView is what a diff reads of one side, in a form cmp compares.
type pairView struct {
	Docs, Skipped, Notes []string
	Objects              []map[string]any
	Policies, Identities []string
	Linkerd              []unstructured.Unstructured
	Kuma                 []map[string]any
}

// viewOf judges a side as diff does and writes down what it found; the
// lines of fields other than metadata.name only with fieldLines.
func viewOf(l Loaded, o Options, fieldLines bool) pairView {
	var v pairView
	rel := func(f string) string { return filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f) }
	for i := range l.Docs {
		d := &l.Docs[i]
		fields := fmt.Sprintf("name at %d", d.LineOf("metadata.name"))
		if fieldLines {
			fields = fmt.Sprintf("spec at %d, %s, to at %d", d.LineOf("spec"), fields, d.LineOf("spec.to[0].default"))
		}
		v.Docs = append(v.Docs, fmt.Sprintf("%s #%d line %d (error line %d: %v) %s, universal %t",
			rel(d.File), d.Index, d.Line, d.ErrLine, d.Err, fields, d.Universal))
	}
	for _, s := range l.Skipped {
		v.Skipped = append(v.Skipped, fmt.Sprintf("%s:%d %s", rel(s.File), s.Line, s.Reason))
	}
	in := Preview(l.Docs, o)
	kuma, kumaNotes := KumaObjects(l.Docs, o)
	for _, n := range append(append(in.Notes, kumaNotes...), in.LinkerdNotes...) {
		v.Notes = append(v.Notes, fmt.Sprintf("%s:%d: %s", rel(n.File), n.Line, n.Text))
	}
	for i := range l.Docs {
		if d := &l.Docs[i]; d.Object != nil {
			v.Objects = append(v.Objects, d.Object.Object)
		}
	}
	for _, p := range in.Policies {
		b, err := json.Marshal(p)
		if err != nil {
			panic(err)
		}
		v.Policies = append(v.Policies, string(b))
	}
	for _, id := range in.Identities {
		v.Identities = append(v.Identities, id.Ref())
	}
	v.Linkerd = in.Linkerd
	for _, k := range kuma {
		v.Kuma = append(v.Kuma, map[string]any{"object": k.Object, "universal": k.Universal})
	}
	return v
}
