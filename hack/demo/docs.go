package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// document is one YAML document of an example file.
type document struct {
	file string
	obj  map[string]any
}

func (d document) meta(k string) string {
	m, _ := d.obj["metadata"].(map[string]any)
	s, _ := m[k].(string)
	return s
}

func (d document) kind() string      { s, _ := d.obj["kind"].(string); return s }
func (d document) namespace() string { return d.meta("namespace") }
func (d document) name() string      { return d.meta("name") }

// ref is "Kind namespace/name".
func (d document) ref() string { return d.kind() + " " + d.namespace() + "/" + d.name() }

// key identifies an object by kind, namespace and name.
func key(obj map[string]any) string {
	d := document{obj: obj}
	return d.kind() + "/" + d.namespace() + "/" + d.name()
}

// readDocs reads every document of the *.yaml files of dir, in file order.
func readDocs(dir string) ([]document, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var out []document
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			raw, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			obj := map[string]any{}
			if err := yaml.Unmarshal(raw, &obj); err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(obj) > 0 {
				out = append(out, document{file: f, obj: obj})
			}
		}
	}
	return out, nil
}

// expectation is one "# expect: CODE field.path" line of an invalid example.
type expectation struct{ code, path string }

// expectations reads an invalid example's first comment line (what is wrong) and
// its expect lines.
func expectations(file string) (why string, out []expectation, err error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", nil, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimPrefix(l, "#"))
		if rest, ok := strings.CutPrefix(text, "expect:"); ok {
			if f := strings.Fields(rest); len(f) == 2 {
				out = append(out, expectation{f[0], f[1]})
			}
		} else if why == "" {
			why = text
		}
	}
	return why, out, nil
}

// cleanStored drops what the API server and kubectl add to every object (uid,
// resourceVersion, managedFields, the last-applied annotation…), leaving what
// meshguard's mutation and the CRD schema made of the file.
func cleanStored(obj map[string]any) map[string]any {
	b, _ := yaml.Marshal(obj)
	out := map[string]any{}
	_ = yaml.Unmarshal(b, &out)
	m, _ := out["metadata"].(map[string]any)
	for _, k := range []string{"creationTimestamp", "generation", "managedFields", "resourceVersion", "uid"} {
		delete(m, k)
	}
	if a, ok := m["annotations"].(map[string]any); ok {
		delete(a, "kubectl.kubernetes.io/last-applied-configuration")
		if len(a) == 0 {
			delete(m, "annotations")
		}
	}
	return out
}

// labelsOf returns metadata.labels.
func labelsOf(obj map[string]any) map[string]string {
	m, _ := obj["metadata"].(map[string]any)
	l, _ := m["labels"].(map[string]any)
	out := map[string]string{}
	for k, v := range l {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// flatten maps each leaf of obj to its value: field paths as in meshguard's
// messages (spec.to[0].targetRef.kind), map keys with dots or slashes in brackets
// (metadata.labels[kuma.io/mesh]). Empty maps and lists are leaves too.
func flatten(obj map[string]any) map[string]string {
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch t := v.(type) {
		case map[string]any:
			if len(t) == 0 {
				out[path] = "{}"
			}
			for k, c := range t {
				p := path + "." + k
				if strings.ContainsAny(k, "./") {
					p = path + "[" + k + "]"
				}
				walk(strings.TrimPrefix(p, "."), c)
			}
		case []any:
			if len(t) == 0 {
				out[path] = "[]"
			}
			for i, c := range t {
				walk(fmt.Sprintf("%s[%d]", path, i), c)
			}
		default:
			out[path] = fmt.Sprint(t)
		}
	}
	walk("", obj)
	return out
}

// unionKeys returns the keys of a and b, sorted.
func unionKeys(a, b map[string]string) []string {
	set := map[string]bool{}
	for k := range a {
		set[k] = true
	}
	for k := range b {
		set[k] = true
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// lineDiff is a unified-style diff of two short texts (longest common subsequence):
// lines prefixed "  ", "- " or "+ ".
func lineDiff(a, b []string) []string {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+ "+b[j])
			j++
		default:
			out = append(out, "- "+a[i])
			i++
		}
	}
	return out
}

// renderJSON pretty-prints raw keeping the key order, with every object or array
// whose compact form fits in width (with its indent) on one line: readable output
// for long, repetitive JSON such as the RBAC preview.
func renderJSON(b *strings.Builder, raw json.RawMessage, indent string, width int) error {
	var compact bytes.Buffer
	if err := json.Compact(&compact, raw); err != nil {
		return err
	}
	c := compact.Bytes()
	if len(indent)+len(c) <= width || (c[0] != '{' && c[0] != '[') {
		b.Write(c)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(c))
	open, _ := dec.Token()
	closing := "]"
	if open == json.Delim('{') {
		closing = "}"
	}
	b.WriteString(fmt.Sprint(open) + "\n")
	first := true
	for dec.More() {
		if !first {
			b.WriteString(",\n")
		}
		first = false
		b.WriteString(indent + "  ")
		if closing == "}" {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteString(": ")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return err
		}
		if err := renderJSON(b, v, indent+"  ", width); err != nil {
			return err
		}
	}
	b.WriteString("\n" + indent + closing)
	return nil
}
