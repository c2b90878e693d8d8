package lint

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestLineOf(t *testing.T) {
	docs := Load([]string{"testdata/load/lineof.yaml"}, nil)
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("want one good document, got %+v", docs)
	}
	d := &docs[0]
	rules := field.NewPath("spec", "rules").Index(0).Child("default", "allow")
	tests := []struct {
		path string
		want int
	}{
		{"", 2},
		{"kind", 3},
		{"metadata", 4},
		{"metadata.name", 5},
		{field.NewPath("metadata", "labels").Key("kuma.io/mesh").String(), 8},
		{"metadata.labels[app.kubernetes.io/name]", 9},
		{"metadata.labels[example.com/a.b]", 10},
		{"metadata.labels[missing.io/key]", 7},
		{"metadata.annotations[x/y[z]]", 11},
		{"metadata.annotations[1]", 11},
		{"spec", 12},
		{"spec.targetRef.labels.app", 16},
		{"spec.targetRef.labels[app]", 16},
		{"spec.rules[0]", 18},
		{rules.Index(0).Child("spiffeId", "value").String(), 22},
		{rules.Index(1).Child("spiffeId", "type").String(), 24},
		// An alias: the item's own line, then the anchored node's lines.
		{rules.Index(2).String(), 26},
		{rules.Index(2).Child("spiffeId", "value").String(), 25},
		{rules.Index(3).String(), 19},
		{"spec.rules[0].default.deny", 27},
		{"spec.rules[0].default.deny[0]", 27},
		{"spec.to[1].targetRef.namespace", 36},
		// A merged key: found through "<<".
		{"spec.to[1].targetRef.name", 35},
		{"spec.to[1].default.connectTimeout", 38},
		// Missing nodes: the nearest existing ancestor.
		{"spec.to[1].targetRef.sectionName", 32},
		{"spec.to[7].targetRef", 28},
		{"spec.from[0].targetRef.kind", 12},
		{"spec.to.kind", 28},
		{"spec.to[x]", 28},
		{"spec.targetRef.kind[0]", 14},
		{"nothing.here", 2},
		// Odd spellings never panic.
		{"[", 2}, {"]", 2}, {".", 2}, {"spec..to", 28}, {"spec[", 12}, {"spec[]", 12}, {"spec.to[-1]", 28},
	}
	for _, tt := range tests {
		if got := d.LineOf(tt.path); got != tt.want {
			t.Errorf("LineOf(%q) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

func TestLineOfListItemsAndErrors(t *testing.T) {
	docs := LoadBytes("l.yaml", []byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: A\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n---\nbroken: [\n"))
	got := []int{docs[0].LineOf("metadata.name"), docs[1].LineOf("metadata.name"), docs[1].LineOf("spec.x"), docs[2].LineOf("metadata.name")}
	if diff := cmp.Diff([]int{7, 11, 8, 13}, got); diff != "" {
		t.Errorf("LineOf in List items and error documents (-want +got):\n%s", diff)
	}
	var zero Document
	if zero.LineOf("spec") != 0 {
		t.Error("LineOf on a zero Document must be 0")
	}
}

func TestParsePath(t *testing.T) {
	tests := []struct {
		in   string
		want []pathSegment
	}{
		{"spec.to[1].targetRef", []pathSegment{{key: "spec"}, {key: "to"}, {key: "1", index: 1, isIndex: true}, {key: "targetRef"}}},
		{"metadata.labels[kuma.io/mesh]", []pathSegment{{key: "metadata"}, {key: "labels"}, {key: "kuma.io/mesh"}}},
		{"a[x]y].b", []pathSegment{{key: "a"}, {key: "x]y"}, {key: "b"}}},
		{"a[+1]", []pathSegment{{key: "a"}, {key: "+1"}}},
		{"a[x", []pathSegment{{key: "a"}, {key: "x"}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, parsePath(tt.in), cmp.AllowUnexported(pathSegment{})); diff != "" {
			t.Errorf("parsePath(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestLoadGuards feeds hostile inputs: each must become an error Document, fast.
func TestLoadGuards(t *testing.T) {
	const head = "apiVersion: v1\nkind: A\n"
	bomb := head + "a: &a [x,x,x,x,x,x,x,x,x,x]\n"
	for i, prev := 'b', 'a'; i <= 'j'; i, prev = i+1, i {
		bomb += string(i) + ": &" + string(i) + " [" + strings.Repeat("*"+string(prev)+",", 9) + "*" + string(prev) + "]\n"
	}
	tests := []struct {
		name, in, err string
	}{
		{"alias bomb", bomb, "excessive aliasing"},
		{"self-referencing alias", head + "a: &a [*a]\n", "deeper than 100 levels"},
		{"deep flow nesting", head + "a: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n", "deeper than 100 levels"},
		{"deep block nesting", head + deepBlock(150), "deeper than 100 levels"},
		{"parser depth limit", head + "a: " + strings.Repeat("[", 20000) + "\n", "exceeded max depth"},
		{"huge document", head + "data: \"" + strings.Repeat("x", MaxDocumentBytes) + "\"\n", "larger than 3 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			docs := LoadBytes("g.yaml", []byte(tt.in+"---\n"+head))
			if len(docs) != 2 || docs[0].Err == nil || !strings.Contains(docs[0].Err.Error(), tt.err) {
				t.Fatalf("want an error containing %q then a good document, got %+v", tt.err, docs)
			}
			if docs[1].Err != nil || docs[1].Line < 2 {
				t.Errorf("the document after the hostile one was not loaded: %+v", docs[1])
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}

func deepBlock(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	return b.String()
}

// TestLineOfMergeChain: a missing key under chains of merges over aliases must not
// make LineOf search exponentially many mappings.
func TestLineOfMergeChain(t *testing.T) {
	in := "apiVersion: v1\nkind: A\nm0: &m0 {x: 1}\n"
	for i := 1; i <= 6; i++ {
		prev := "*m" + strconv.Itoa(i-1)
		in += "m" + strconv.Itoa(i) + ": &m" + strconv.Itoa(i) + " {<<: [" + strings.Repeat(prev+", ", 3) + prev + "]}\n"
	}
	in += "spec:\n  <<: *m6\n"
	docs := LoadBytes("m.yaml", []byte(in))
	if len(docs) != 1 || docs[0].Err != nil {
		t.Fatalf("want one good document, got %+v", docs)
	}
	start := time.Now()
	if got := docs[0].LineOf("spec.missing.key"); got != 10 {
		t.Errorf("LineOf = %d, want 10", got)
	}
	if got := docs[0].LineOf("spec.x"); got != 3 {
		t.Errorf("LineOf(spec.x) = %d, want 3 (the merged key's line)", got)
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("took %v", el)
	}
}
