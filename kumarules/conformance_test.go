package kumarules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/meshguard/meshguard/api"
)

// conformanceDir holds Kuma 2.14.3's own rules-engine tables (see its README and
// ../NOTICE.md): the inputs and the YAML dumps of what Kuma's rules code returns.
const conformanceDir = "testdata/kuma-inspect-2.14"

// unsupported are the cases of the walked folders the engine does not agree with
// yet, each with the reason (none today). Deliberate differences are not here but in
// docs/conformance.md, between the kuma-rules markers. A listed case that starts
// agreeing fails the test, so both lists only shrink; a case not listed that stops
// agreeing is a regression.
func unsupported() map[string]string { return map[string]string{} }

// conformanceDoc lists the deliberate differences (see unsupported).
const conformanceDoc = "../docs/conformance.md"

// notAgreeing is every case allowed to differ, with its reason: unsupported ones and
// the rows of docs/conformance.md's kuma-rules table ("| case | difference | why |").
func notAgreeing(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(conformanceDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- kuma-rules:begin -->")
	body, _, ok2 := strings.Cut(rest, "<!-- kuma-rules:end -->")
	if !ok || !ok2 {
		t.Fatalf("%s has no kuma-rules markers", conformanceDoc)
	}
	out := unsupported()
	for _, line := range strings.Split(body, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 {
			continue
		}
		c := strings.Trim(strings.TrimSpace(cells[1]), "`")
		if c == "case" || strings.HasPrefix(c, "---") {
			continue
		}
		if strings.TrimSpace(cells[3]) == "" {
			t.Errorf("%s: the kuma-rules row of %s gives no reason", conformanceDoc, c)
		}
		out[c] = strings.TrimSpace(cells[3])
	}
	return out
}

// conformanceCase runs the engine on one input and returns what it computed and
// what Kuma's golden says, both in the comparable form.
type conformanceCase func(t *testing.T, policies []Policy, golden map[string]any) (got, want any)

func TestKumaRulesConformance(t *testing.T) {
	e := New(api.DefaultRegistry())
	folders := map[string]conformanceCase{
		"core-rules/rules/from":           e.fromCase,
		"core-rules/rules/to":             e.toCase,
		"core-rules/rules/single":         e.singleCase,
		"core-rules-inbound/inboundrules": e.inboundCase,
		"core-rules-outbound/sort":        e.outboundSortCase,
	}
	for folder, run := range folders {
		t.Run(folder, func(t *testing.T) { runFolder(t, folder, run) })
	}
}

func runFolder(t *testing.T, folder string, run conformanceCase) {
	inputs, _ := filepath.Glob(filepath.Join(conformanceDir, folder, "*.input.yaml"))
	if len(inputs) == 0 {
		t.Fatalf("no inputs under %s/%s", conformanceDir, folder)
	}
	agree, allowed := 0, notAgreeing(t)
	for _, in := range inputs {
		name := folder + "/" + strings.TrimSuffix(filepath.Base(in), ".input.yaml")
		policies, err := readPolicies(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden := readGolden(t, strings.Replace(in, ".input.", ".golden.", 1))
		got, want := run(t, policies, golden)
		if agrees(t, name, got, want, allowed) {
			agree++
		}
	}
	t.Logf("%s: %d/%d cases agree with Kuma 2.14.3", folder, agree, len(inputs))
}

// readPolicies decodes a multi-document Universal input into policies.
func readPolicies(path string) ([]Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	reg := api.DefaultRegistry()
	var out []Policy
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		v, err := lastWins(&node)
		if err != nil {
			return nil, err
		}
		doc, _ := v.(map[string]any)
		if doc == nil {
			continue
		}
		u, ferr := api.FromUniversal(doc, reg)
		if ferr != nil {
			return nil, ferr
		}
		p, err := PolicyFromObject(u)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
}

// lastWins decodes a YAML node letting a repeated mapping key override the earlier
// one, as the YAML reader of Kuma's tests does (one of its inputs lacks a "---").
func lastWins(n *yaml.Node) (any, error) {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return lastWins(n.Content[0])
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := lastWins(n.Content[i+1])
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		l := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := lastWins(c)
			if err != nil {
				return nil, err
			}
			l = append(l, v)
		}
		return l, nil
	case yaml.AliasNode:
		return lastWins(n.Alias)
	}
	var v any
	err := n.Decode(&v)
	return v, err
}

func readGolden(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return map[string]any{"list": v}
}

func (e *Engine) fromCase(t *testing.T, policies []Policy, golden map[string]any) (got, want any) {
	fr, err := e.BuildFromRules(policies)
	if err != nil {
		return map[string]any{"error": err.Error()}, golden
	}
	const inbound = "127.0.0.1:80"
	got = map[string]any{"rules": rulesView(fr.Rules), "inbound": inboundView(fr.InboundRules)}
	gr, _ := golden["Rules"].(map[string]any)
	gi, _ := golden["InboundRules"].(map[string]any)
	want = map[string]any{"rules": goldenRules(gr[inbound]), "inbound": goldenInbound(gi[inbound])}
	return got, want
}

func (e *Engine) toCase(t *testing.T, policies []Policy, golden map[string]any) (got, want any) {
	var ps []Policy
	for _, p := range policies {
		if p.Type != refMeshHTTPRoute {
			ps = append(ps, p)
		}
	}
	tr, err := e.BuildToRules(ps, policies)
	if err != nil {
		return map[string]any{"error": err.Error()}, golden
	}
	rr, _ := golden["ResourceRules"].(map[string]any)
	return map[string]any{"rules": rulesView(tr.Rules), "resources": resourceRulesView(tr.ResourceRules)},
		map[string]any{"rules": goldenRules(golden["Rules"]), "resources": goldenResourceRules(rr)}
}

func (e *Engine) singleCase(t *testing.T, policies []Policy, golden map[string]any) (got, want any) {
	sr, err := e.BuildSingleItemRules(policies)
	if err != nil {
		return map[string]any{"error": err.Error()}, golden
	}
	return rulesView(sr.Rules), goldenRules(golden["Rules"])
}

// inboundCase passes the policies Kuma's test passes: those named matched-for-rules-*.
func (e *Engine) inboundCase(t *testing.T, policies []Policy, golden map[string]any) (got, want any) {
	var ps []Policy
	for _, p := range policies {
		if strings.HasPrefix(p.Name, "matched-for-rules-") {
			ps = append(ps, p)
		}
	}
	rules, err := e.BuildInboundRules(ps)
	if err != nil {
		return map[string]any{"error": err.Error()}, golden
	}
	return inboundView(rules), goldenInboundNew(golden["rules"])
}

// outboundSortCase compares the order of the `to` items of the matched-for-rules-*
// policies: policy name and item index, in order.
func (e *Engine) outboundSortCase(t *testing.T, policies []Policy, golden map[string]any) (got, want any) {
	var ps []Policy
	for _, p := range policies {
		if strings.HasPrefix(p.Name, "matched-for-rules-") {
			ps = append(ps, p)
		}
	}
	items, err := e.ToEntries(ps)
	if err != nil {
		return err.Error(), golden
	}
	g := []string{}
	for _, it := range items {
		g = append(g, fmt.Sprintf("%s[%d]", it.Policy.Name, it.Index))
	}
	w := []string{}
	list, _ := golden["list"].([]any)
	for _, x := range list {
		m, _ := x.(map[string]any)
		meta, _ := m["Meta"].(map[string]any)
		w = append(w, fmt.Sprintf("%v[%v]", meta["name"], m["RuleIndex"]))
	}
	return g, w
}

// The comparable form: a rule is its subset (a sorted set of k=v / k!=v), its conf
// (durations in Go's canonical spelling) and its origins as type/mesh/name in order.

func subsetView(ss []string) []string {
	sort.Strings(ss)
	if ss == nil {
		ss = []string{}
	}
	return ss
}

func rulesView(rules []Rule) []any {
	out := []any{}
	for _, r := range rules {
		var ss []string
		for _, tg := range r.Subset {
			ss = append(ss, tagString(tg.Key, tg.Value, tg.Not))
		}
		var os []string
		for _, o := range r.Origins {
			os = append(os, o.Type+"/"+o.Mesh+"/"+o.Name)
		}
		out = append(out, map[string]any{"subset": subsetView(ss), "conf": normalize(r.Conf), "origins": os})
	}
	return out
}

func tagString(k, v string, not bool) string {
	if not {
		return k + "!=" + v
	}
	return k + "=" + v
}

func goldenRules(v any) []any {
	list, _ := v.([]any)
	out := []any{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		var ss, os []string
		sl, _ := m["Subset"].([]any)
		for _, x := range sl {
			tm, _ := x.(map[string]any)
			not, _ := tm["Not"].(bool)
			ss = append(ss, tagString(fmt.Sprint(tm["Key"]), fmt.Sprint(tm["Value"]), not))
		}
		ol, _ := m["Origin"].([]any)
		for _, x := range ol {
			os = append(os, originString(x))
		}
		out = append(out, map[string]any{"subset": subsetView(ss), "conf": normalize(m["Conf"]), "origins": os})
	}
	return out
}

func originString(v any) string {
	om, _ := v.(map[string]any)
	return fmt.Sprint(om["type"]) + "/" + fmt.Sprint(om["mesh"]) + "/" + fmt.Sprint(om["name"])
}

func inboundView(rules []InboundRule) []any {
	out := []any{}
	for _, r := range rules {
		o := r.Origin
		out = append(out, map[string]any{"match": normalize(r.Match), "conf": normalize(r.Conf),
			"origin": fmt.Sprintf("%s/%s/%s[%d]", o.Type, o.Mesh, o.Name, o.Index)})
	}
	return out
}

// goldenInbound reads the InboundRules of a FromRules dump (the rules' own JSON tags).
func goldenInbound(v any) []any { return goldenInboundNew(v) }

func goldenInboundNew(v any) []any {
	list, _ := v.([]any)
	out := []any{}
	for _, e := range list {
		m, _ := e.(map[string]any)
		om, _ := m["origin"].(map[string]any)
		out = append(out, map[string]any{"match": normalize(m["match"]), "conf": normalize(m["conf"]),
			"origin": fmt.Sprintf("%s[%v]", originString(om["Resource"]), om["RuleIndex"])})
	}
	return out
}

// normalize rewrites duration strings in Go's canonical spelling (Kuma re-marshals
// 101s as 1m41s; meshguard keeps the written one, docs/conformance.md) and numbers
// as float64, so that JSON comparison sees meaning.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case string:
		if d, err := time.ParseDuration(x); err == nil && strings.ContainsAny(x, "hmsun") {
			return d.String()
		}
	case int:
		return float64(x)
	case int64:
		return float64(x)
	}
	return v
}

// agrees compares a case's answer with Kuma's as canonical JSON. A case listed
// in allowed (a deliberate difference, with its reason) must differ, and one
// that is not must agree: either way the list stays true.
func agrees(t *testing.T, name string, got, want any, allowed map[string]string) bool {
	t.Helper()
	gj, wj := canonicalJSON(t, got), canonicalJSON(t, want)
	reason, listed := allowed[name]
	switch {
	case gj == wj && listed:
		t.Errorf("%s now agrees with Kuma: remove it from the list (%s)", name, reason)
	case gj != wj && !listed:
		t.Errorf("%s differs from Kuma\n got: %s\nwant: %s", name, gj, wj)
	}
	return gj == wj && !listed
}

func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
