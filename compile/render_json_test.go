package compile

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	httprbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	netrbac "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/rbac/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"github.com/meshguard/meshguard/api"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// sameAsReference fails t unless MarshalJSONCompact and MarshalJSON give exactly
// the bytes (or the error) of the encoding/json reference in render_ref_test.go.
func sameAsReference(t testing.TB, name string, pvs []Preview) {
	t.Helper()
	for _, c := range []struct {
		kind      string
		got, want func([]Preview) ([]byte, error)
	}{{"compact", MarshalJSONCompact, refMarshalJSONCompact}, {"indented", MarshalJSON, refMarshalJSON}} {
		got, gotErr := c.got(pvs)
		want, wantErr := c.want(pvs)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("%s %s: error %v, reference %v", name, c.kind, gotErr, wantErr)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s %s: differs from the reference\ngot  %q\nwant %q", name, c.kind, got, want)
		}
	}
}

// referenceInputs are the policy sets of the package's tests and golden files.
func referenceInputs() map[string]string {
	in := map[string]string{
		"seed000":            seed000YAML,
		"seed000 cross-mesh": seed000CrossMeshYAML,
		"seed001 stories":    seed001StoriesYAML,
	}
	for _, s := range seed001Stories() {
		in["seed001 "+s.story] = s.policies
	}
	for _, c := range analyzeCases() {
		in["analyze "+c.name] = c.yaml
	}
	for _, r := range Catalogue() {
		in["catalogue bad "+r.Code] = r.Bad
		in["catalogue good "+r.Code] = r.Good
	}
	return in
}

// TestMarshalJSONMatchesReference renders every policy set of the package's tests
// (Kuma's MeshTrafficPermission MADR and 001, matcher groups, findings, form fallbacks with warnings) in
// every form and checks the bytes against the encoding/json reference.
func TestMarshalJSONMatchesReference(t *testing.T) {
	opts := map[string]Options{
		"compact":  {Form: FormCompact},
		"expanded": {Form: FormExpanded},
		"fallback": {Form: FormExpanded, MaxExpandedRules: 1},
		"prefix":   {StatPrefix: "<a&b>\u2028\"q\"\\"},
	}
	seen := map[string]bool{}
	for name, docs := range referenceInputs() {
		for oname, o := range opts {
			pvs, err := BuildPreviews(policiesFromYAML(t, docs), o)
			if err != nil {
				t.Fatalf("%s %s: %v", name, oname, err)
			}
			for _, pv := range pvs {
				seen[string(pv.Form)] = true
				seen["findings"] = seen["findings"] || len(pv.Findings) > 0
				seen["warnings"] = seen["warnings"] || len(pv.Warnings) > 0
				seen["http"] = seen["http"] || pv.HTTPRBAC != nil
			}
			sameAsReference(t, name+" "+oname, pvs)
		}
	}
	for _, want := range []string{"compact", "expanded", "matcher", "findings", "warnings", "http"} {
		if !seen[want] {
			t.Errorf("no input exercises %s", want)
		}
	}
}

// nastyStrings are the strings encoding/json escapes in some way.
func nastyStrings() []string {
	return []string{
		"", "plain", `<script>&amp;</script>`, `"quoted" \back\slash/`, "ctl\x00\x01\x07\b\f\n\r\t\x1f\x7f",
		"bad utf8 \xff\xfe \xc3 end", "sep\u2028par\u2029", "\xe2\x80", "\xe2\x80\xa8\xe2\x80\xa9", "é日本\U0001F600",
		"\ufffd", "\xed\xa0\x80 surrogate",
	}
}

// nastyPreviews fills every field of the document with s, u and v.
func nastyPreviews(s, u, v string, n int) []Preview {
	ref := &api.TargetRef{Kind: api.RefKind(s), Name: u, Namespace: v, Labels: map[string]string{s: u, u: v, v: s},
		Tags: map[string]string{u: s, "b": v, "a": u}, Mesh: s, ProxyTypes: []string{s, u, v}, SectionName: u}
	var bad any = s
	switch n % 4 {
	case 1:
		bad = n
	case 2:
		bad = nil
	case 3:
		bad = []string{s, u}
	}
	rbac := &netrbac.RBAC{StatPrefix: s, Rules: &rbacv3.RBAC{Policies: map[string]*rbacv3.Policy{u: {
		Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
		Principals: []*rbacv3.Principal{{Identifier: &rbacv3.Principal_Authenticated_{Authenticated: &rbacv3.Principal_Authenticated{
			PrincipalName: &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: v}}}}}},
	}}}}
	full := Preview{
		Target:   Target{Kind: api.RefKind(s), Name: u, Tags: map[string]string{s: v, v: u}, SectionName: v, Namespace: s, Zone: u, Mesh: v},
		Scope:    s,
		Policies: []string{s, u, v},
		Items: []PreviewItem{
			{Policy: s, Path: u, TargetRef: ref, Action: v},
			{Policy: u, Path: v, TargetRef: &api.TargetRef{}},
			{Policy: v, Path: s, List: u, SpiffeID: &api.StringMatch{Type: s, Value: v}, Method: u, RequestPath: &api.StringMatch{}},
			{},
		},
		Form:     Form(u),
		RBAC:     rbac,
		HTTPRBAC: &httprbac.RBAC{Rules: rbac.Rules},
		Warnings: []string{s, u, v},
		Findings: field.ErrorList{
			(&field.Error{Type: field.ErrorTypeInvalid, Field: u, BadValue: bad, Detail: v}).WithOrigin(s),
			{BadValue: u},
		},
	}
	sparse := Preview{Target: Target{Kind: api.RefKind(v)}, Scope: u, Policies: []string{}, Items: []PreviewItem{},
		RBAC: &netrbac.RBAC{}, Warnings: []string{}}
	return []Preview{full, {}, sparse}
}

// TestMarshalJSONEscapingMatchesReference covers what the package's policies never
// contain: <, >, &, quotes, backslashes, control bytes, invalid UTF-8 and U+2028 in
// every string of the document, empty and nil lists, maps and pointers, and
// protojson errors (invalid UTF-8 in a config).
func TestMarshalJSONEscapingMatchesReference(t *testing.T) {
	sameAsReference(t, "nil", nil)
	sameAsReference(t, "empty", []Preview{})
	sameAsReference(t, "zero", []Preview{{}})
	ss := nastyStrings()
	for i, s := range ss {
		u, v := ss[(i+1)%len(ss)], ss[(i+5)%len(ss)]
		pvs := nastyPreviews(s, u, v, i)
		sameAsReference(t, fmt.Sprintf("nasty %d", i), pvs)
		pvs[0].RBAC, pvs[0].HTTPRBAC = nil, nil // keep the document when the strings are not UTF-8
		sameAsReference(t, fmt.Sprintf("nasty %d without configs", i), pvs)
	}
}

// FuzzMarshalJSONCompact compares the hand-written encoder with the encoding/json
// reference on previews made of fuzzed strings: directly (every field, protojson
// errors included) and through BuildPreviews of a `from` policy and a SPIFFE
// matcher policy whose names, tags, matchers and stat prefix are fuzzed.
func FuzzMarshalJSONCompact(f *testing.F) {
	ss := nastyStrings()
	for i, s := range ss {
		f.Add(s, ss[(i+1)%len(ss)], ss[(i+5)%len(ss)], i)
	}
	f.Add("backend", "version", "v1", 2)
	f.Fuzz(func(t *testing.T, s, u, v string, n int) {
		pvs := nastyPreviews(s, u, v, n)
		sameAsReference(t, "nasty", pvs)
		pvs[0].RBAC, pvs[0].HTTPRBAC = nil, nil
		sameAsReference(t, "nasty without configs", pvs)

		// Strings stay as fuzzed, valid UTF-8 or not: BuildPreviews must not panic
		// on either (it once did, packing an Action named after the policy).
		actions := []string{"Allow", "Deny", "AllowWithShadowDeny", "DenyWithShadowAllow", s}
		from := Policy{Name: s, Namespace: u, Mesh: v, Zone: u, Spec: api.MeshTrafficPermissionSpec{
			TargetRef: &api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{u: v}},
			From: []api.MTPFrom{
				{TargetRef: &api.TargetRef{Kind: api.RefMeshSubset, Tags: map[string]string{s: u, "env": v}}, Default: api.MTPConf{Action: actions[uint(n)%uint(len(actions))]}},
				{TargetRef: &api.TargetRef{Kind: api.RefMeshService, Name: u, Mesh: s}, Default: api.MTPConf{Action: actions[uint(n/5)%uint(len(actions))]}},
				{TargetRef: &api.TargetRef{Kind: api.RefMesh}, Default: api.MTPConf{Action: "Deny"}},
			},
		}}
		matches := []api.SpiffeMatch{
			{SpiffeId: &api.StringMatch{Type: "Prefix", Value: s}, Method: u},
			{SpiffeID: &api.StringMatch{Type: "Exact", Value: v}, Path: &api.StringMatch{Type: "Prefix", Value: u}},
			{},
		}
		matcher := Policy{Name: u, Namespace: s, Mesh: v, Spec: api.MeshTrafficPermissionSpec{
			Default: &api.MTPMatches{Allow: &matches, Deny: &[]api.SpiffeMatch{{SpiffeID: &api.StringMatch{Type: "Exact", Value: u}}}}}}
		o := Options{Form: FormCompact, StatPrefix: v}
		if n%2 != 0 {
			o = Options{Form: FormExpanded}
		}
		for _, ps := range [][]Policy{{from}, {from, matcher}} {
			pvs, err := BuildPreviews(ps, o)
			if err != nil {
				continue // the fuzzed policy does not compile; nothing to render
			}
			sameAsReference(t, "built", pvs)
		}
	})
}

// fillAll sets every field reachable from v (strings, string lists and maps,
// pointers to structs) to something non-empty, failing on a kind it does not know.
func fillAll(t *testing.T, v reflect.Value, s string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(s)
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.String {
			t.Fatalf("fillAll: unexpected %s", v.Type())
		}
		v.Set(reflect.ValueOf([]string{s, s + "2"}).Convert(v.Type()))
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String || v.Type().Elem().Kind() != reflect.String {
			t.Fatalf("fillAll: unexpected %s", v.Type())
		}
		v.Set(reflect.ValueOf(map[string]string{s + "z": s, s + "a": s}).Convert(v.Type()))
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(t, v.Elem(), s)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			fillAll(t, v.Field(i), fmt.Sprintf("%s.%d", s, i))
		}
	default:
		t.Fatalf("fillAll: unexpected %s", v.Type())
	}
}

// TestMarshalJSONCoversEveryField fills every field of Target and PreviewItem
// (with api.TargetRef and api.StringMatch inside) by reflection, so that a field
// added to one of them fails here until previewEncoder writes it too, and a field
// of a kind the encoder has no case for stops fillAll.
func TestMarshalJSONCoversEveryField(t *testing.T) {
	var pv Preview
	fillAll(t, reflect.ValueOf(&pv.Target).Elem(), "t<")
	pv.Items = make([]PreviewItem, 2)
	for i := range pv.Items {
		fillAll(t, reflect.ValueOf(&pv.Items[i]).Elem(), fmt.Sprintf("i%d&", i))
	}
	sameAsReference(t, "every field", []Preview{pv})
}
