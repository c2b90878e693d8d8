package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation/field"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// oddSpec exercises kinds and tag forms the registry's types do not use, so the
// direct conversion is checked against the round trip beyond today's types.
type oddSpec struct {
	I8     int8                  `json:"i8"`
	I      int                   `json:"i"`
	F      float64               `json:"f"`
	FP     *float64              `json:"fp"`
	B      bool                  `json:"b"`
	PP     **string              `json:"pp"`
	M      map[string]int32      `json:"m"`
	NK     map[RefKind][]any     `json:"nk"`
	L      []*oddSpec            `json:"l"`
	A      any                   `json:"a,omitempty"`
	PA     *any                  `json:"pa"`
	Skip   string                `json:"-"`
	Dash   string                `json:"-,"`
	NoTag  string                // an untagged field keys on its Go name
	BadTag string                `json:"a\"b"`
	Names  names                 `json:"names"`
	MS     map[string]string     `json:"ms"`
	MP     map[string]*TargetRef `json:"mp"`
	Kind   RefKind               `json:"kind"`
	hidden string
}

type names []string

// The types below each have one thing the direct conversion leaves to the round
// trip, so each is checked on its own.
type (
	withUint   struct{ U uint }
	withRaw    struct{ R json.RawMessage }
	withString struct {
		S int `json:"s,string"`
	}
	withEmbedded struct {
		embeddedKind
		Name string `json:"name"`
	}
	withNumber  struct{ N json.Number }
	withFloat32 struct{ F float32 }
	withBytes   struct{ X []byte }
	withDup     struct {
		A    string `json:"Kind"`
		Kind string // the tagged field wins the key
	}
)

// upper and lower decode themselves: the round trip calls their methods.
type (
	upper string
	lower string
)

func (u *upper) UnmarshalJSON(b []byte) error { *u = upper(bytes.ToUpper(b)); return nil }
func (l *lower) UnmarshalText(b []byte) error { *l = lower(bytes.ToLower(b)); return nil }

type (
	withUnmarshaler struct {
		U upper `json:"u"`
	}
	withTextUnmarshaler struct {
		L lower `json:"l"`
	}
	withTextKeys struct {
		L map[lower]string `json:"l"`
	}
)

// embeddedKind is embedded by withEmbedded: encoding/json promotes its fields
// even though the type is unexported.
type embeddedKind struct {
	Kind string `json:"kind"`
}

// decodeTypes are the spec types of every registry kind (both families), the conf
// types, and the odd ones above.
func decodeTypes() []reflect.Type {
	seen := map[reflect.Type]bool{}
	var out []reflect.Type
	add := func(t reflect.Type) {
		if t != nil && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, k := range DefaultRegistry().Kinds() {
		add(reflect.TypeOf(k.NewSpec()).Elem())
		add(k.Conf)
	}
	add(reflect.TypeFor[oddSpec]())
	for _, u := range []any{withUint{}, withRaw{}, withString{}, withEmbedded{}, withNumber{}, withFloat32{}, withBytes{}, withDup{},
		withUnmarshaler{}, withTextUnmarshaler{}, withTextKeys{}} {
		add(reflect.TypeOf(u))
	}
	add(reflect.TypeFor[any]())
	add(reflect.TypeFor[map[string]any]())
	add(reflect.TypeFor[[]BackendRef]())
	return out
}

// sameDecode decodes v into a fresh t with Decode and with the reference round trip
// and fails t on any difference in result or error.
func sameDecode(tb testing.TB, v any, typ reflect.Type) {
	tb.Helper()
	got, want := reflect.New(typ), reflect.New(typ)
	gotErr := Decode(v, got.Interface())
	wantErr := decodeRoundTrip(v, want.Interface())
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		tb.Fatalf("%v from %#v: error %v, reference %v", typ, v, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got.Elem().Interface(), want.Elem().Interface()) {
		tb.Fatalf("%v from %#v:\n got %#v\nwant %#v", typ, v, got.Elem().Interface(), want.Elem().Interface())
	}
}

// sameForAllTypes runs sameDecode for every decode type, on v and, as validate and
// compile do, on what Check leaves of it.
func sameForAllTypes(tb testing.TB, v any) {
	tb.Helper()
	for _, typ := range decodeTypes() {
		sameDecode(tb, v, typ)
		if typ.Kind() == reflect.Struct {
			sameDecode(tb, Check(typ, v, field.NewPath("spec")).Clean, typ)
		}
	}
}

func mtpSpec() map[string]any {
	item := func(service, action string) any {
		return map[string]any{
			"targetRef": map[string]any{"kind": "MeshSubset", "tags": map[string]any{"kuma.io/service": service}},
			"default":   map[string]any{"action": action},
		}
	}
	return map[string]any{
		"targetRef": map[string]any{"kind": "Dataplane", "labels": map[string]any{"app": "backend"}},
		"from": []any{item("frontend_frontend-ns_svc_8080", "Allow"),
			item("legacy_legacy-ns_svc_8080", "AllowWithShadowDeny")},
	}
}

func TestDecodeMatchesRoundTrip(t *testing.T) {
	bad := "a\xffb\xc3"
	for name, v := range map[string]any{
		"nil":        nil,
		"mtp":        mtpSpec(),
		"not object": "Mesh",
		"list":       []any{mtpSpec(), nil},
		"rules": map[string]any{"rules": []any{map[string]any{"default": map[string]any{
			"allow": []any{map[string]any{"spiffeID": map[string]any{"type": "Exact", "value": "spiffe://x"}}},
			"deny":  []any{}}}}},
		"numbers in free parts": map[string]any{"default": map[string]any{
			"a": 1.0, "b": 0.5, "c": int64(3), "d": 3, "e": -0.0, "f": 1e21, "g": 1e20, "h": 1e-7,
			"i": float64(1 << 62), "j": float64(1 << 63), "k": -float64(1 << 63), "l": 9007199254740993.0,
			"m": float64(1<<63 - 1024), "n": 123456789.125, "p": float64(1 << 60), "o": []any{2.0, nil, map[string]any(nil)}}},
		"ports": map[string]any{"to": []any{map[string]any{"rules": []any{map[string]any{"default": map[string]any{
			"backendRefs": []any{
				map[string]any{"kind": "MeshService", "port": 8080.0, "weight": int64(1)},
				map[string]any{"port": 80, "weight": -0.0},
			}}}}}}},
		"port too big":     map[string]any{"to": []any{map[string]any{"rules": []any{map[string]any{"default": map[string]any{"backendRefs": []any{map[string]any{"port": 1e20}}}}}}}},
		"port fraction":    map[string]any{"to": []any{map[string]any{"rules": []any{map[string]any{"default": map[string]any{"backendRefs": []any{map[string]any{"port": 80.5}}}}}}}},
		"port 2^62":        map[string]any{"to": []any{map[string]any{"rules": []any{map[string]any{"default": map[string]any{"backendRefs": []any{map[string]any{"port": float64(1 << 62)}}}}}}}},
		"json numbers":     map[string]any{"default": map[string]any{"n": json.Number("12"), "f": json.Number("1.5")}},
		"int32":            map[string]any{"default": int32(4)},
		"nan in free":      map[string]any{"default": math.NaN()},
		"nan in unknown":   map[string]any{"unknown": map[string]any{"x": math.Inf(1)}, "targetRef": map[string]any{"kind": "Mesh"}},
		"bad utf8 value":   map[string]any{"targetRef": map[string]any{"kind": bad, "labels": map[string]any{"k": bad}}, "default": []any{bad}},
		"bad utf8 key":     map[string]any{"targetRef": map[string]any{"labels": map[string]any{"a\xff": "1", "a\xfe": "2"}}},
		"bad utf8 field":   map[string]any{"targetRef\xff": map[string]any{}, "default": map[string]any{"\xff": 1, "\xfe": 2}},
		"nulls":            map[string]any{"targetRef": map[string]any{"kind": nil, "labels": map[string]any{"a": nil}, "proxyTypes": []any{nil, "x"}}, "from": nil, "to": []any{nil}},
		"nil map and list": map[string]any{"targetRef": map[string]any(nil), "to": []any(nil), "default": map[string]any{"x": []any(nil)}},
		"empty":            map[string]any{"targetRef": map[string]any{}, "to": []any{}, "default": map[string]any{}},
		"wrong types":      map[string]any{"targetRef": map[string]any{"kind": 5}, "to": "x", "from": map[string]any{}},
		"case":             map[string]any{"TargetRef": map[string]any{"kind": "Mesh"}, "targetRef": map[string]any{"Kind": "Mesh"}},
		"foreign types":    map[string]any{"targetRef": map[string]any{"proxyTypes": []string{"Sidecar"}}},
		"linkerd port":     map[string]any{"port": "http", "podSelector": map[string]any{"matchLabels": map[string]any{"app": "x"}}},
		"linkerd port int": map[string]any{"port": 8080.0, "proxyProtocol": "HTTP/2"},
		"odd": map[string]any{"i8": 127.0, "i": int64(math.MaxInt64), "f": int64(1<<62 + 1), "fp": 0.1, "b": true,
			"pp": "x", "m": map[string]any{"a": 1, "b": nil}, "nk": map[string]any{"Mesh": []any{1.5}},
			"l": []any{map[string]any{"i8": -128}, nil}, "a": nil, "pa": 2.0, "-": "dash", "NoTag": "t",
			"Skip": "no", "hidden": "no", "names": []any{"a"}, "ms": map[string]any{}, "mp": map[string]any{"x": nil, "y": map[string]any{"kind": "Mesh"}},
			"kind": "Mesh", "BadTag": "b"},
		"odd overflow":   map[string]any{"i8": 128},
		"odd small":      map[string]any{"f": 3, "fp": int64(7), "i": float64(1 << 60), "pa": float64(1 << 60)},
		"unsupported":    map[string]any{"U": 1, "R": map[string]any{"a": 1}, "s": "12", "kind": "Mesh", "N": "1", "F": 0.1, "X": "aGk=", "name": "n", "Kind": "k", "u": "a", "l": map[string]any{"A": "b"}},
		"text":           map[string]any{"l": "ABC"},
		"invalid number": map[string]any{"N": "x"},
		"cycle-free deep": func() any {
			var v any = "leaf"
			for range 1100 {
				v = map[string]any{"default": v}
			}
			return v
		}(),
		"chan": map[string]any{"default": make(chan int)},
	} {
		t.Run(name, func(t *testing.T) { sameForAllTypes(t, v) })
	}
}

// TestDecodeIntoNonZero checks that Decode merges into a non-zero target as the
// round trip does (maps kept, pointers reused).
func TestDecodeIntoNonZero(t *testing.T) {
	fill := func() *MeshTrafficPermissionSpec {
		return &MeshTrafficPermissionSpec{TargetRef: &TargetRef{Kind: RefMesh, Labels: map[string]string{"old": "1"}},
			From: []MTPFrom{{Default: MTPConf{Action: "Deny"}}, {}}}
	}
	got, want := fill(), fill()
	v := mtpSpec()
	if err, ref := Decode(v, got), decodeRoundTrip(v, want); err != nil || ref != nil {
		t.Fatal(err, ref)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	var notPtr MeshTrafficPermissionSpec
	if err := Decode(v, notPtr); err == nil || err.Error() != decodeRoundTrip(v, notPtr).Error() {
		t.Errorf("non-pointer target: %v", err)
	}
}

// TestDecodeDoesNotAlias checks that free-form parts are copies: the round trip
// never shares maps with its input, and validate mutates the input's defaults.
func TestDecodeDoesNotAlias(t *testing.T) {
	def := map[string]any{"a": []any{1.0}}
	var spec PolicySpec
	if err := Decode(map[string]any{"default": def}, &spec); err != nil {
		t.Fatal(err)
	}
	def["a"].([]any)[0] = "changed"
	def["b"] = 2
	if want := map[string]any{"a": []any{int64(1)}}; !reflect.DeepEqual(spec.Default, want) {
		t.Errorf("decoded default changed with its input: %#v", spec.Default)
	}
}

// docValues decodes doc the ways meshguard's inputs are decoded: encoding/json into
// any (float64 numbers), the API server's int-preserving JSON, kubectl's YAML to JSON,
// and yaml.v3 as the linter reads it (int64, float64, keys as strings); for each, the
// object's spec too.
func docValues(doc []byte) []any {
	var out []any
	add := func(v any, err error) {
		if err != nil {
			return
		}
		out = append(out, v)
		if m, ok := v.(map[string]any); ok && m["spec"] != nil {
			out = append(out, m["spec"])
		}
	}
	var v1, v2, v3 any
	add(v1, json.Unmarshal(doc, &v1))
	add(v2, sigsjson.UnmarshalCaseSensitivePreserveInts(doc, &v2))
	if j, err := sigsyaml.YAMLToJSON(doc); err == nil {
		add(v3, sigsjson.UnmarshalCaseSensitivePreserveInts(j, &v3))
	}
	dec := yaml.NewDecoder(bytes.NewReader(doc))
	for range 4 {
		var y any
		if err := dec.Decode(&y); err != nil {
			break
		}
		add(lintValue(y, 0), nil)
	}
	return out
}

// lintValue turns yaml.v3's decoding into the value types of lint's converter.
func lintValue(v any, depth int) any {
	if depth > 50 {
		return nil
	}
	switch x := v.(type) {
	case int:
		return int64(x)
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return float64(x)
	case map[string]any:
		for k, e := range x {
			x[k] = lintValue(e, depth+1)
		}
		return x
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = lintValue(e, depth+1)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = lintValue(e, depth+1)
		}
		return x
	}
	return v
}

// genValue builds a value from fuzz bytes with the Go types no decoder produces but
// Decode accepts: int, nil maps and lists, invalid UTF-8, NaN, json.Number.
func genValue(b []byte) any {
	g := &valueGen{b: b}
	return g.value(0)
}

type valueGen struct {
	b []byte
	i int
}

func (g *valueGen) next() byte {
	if g.i >= len(g.b) {
		return 0
	}
	g.i++
	return g.b[g.i-1]
}

var genKeys = []string{"targetRef", "kind", "name", "labels", "tags", "to", "from", "rules", "default",
	"action", "allow", "deny", "spiffeID", "spiffeId", "type", "value", "backendRefs", "port", "weight",
	"matches", "filters", "requestMirror", "backendRef", "hostnames", "podSelector", "matchLabels",
	"server", "client", "networks", "cidr", "identities", "proxyTypes", "i8", "l", "a", "Kind", "U", "R", "s", "N", "F", "X", "\xff", "x"}

var genFloats = []float64{0, 1, -1, 0.5, 1e21, 1e20, 1e-7, float64(1 << 53), float64(1<<53 + 2),
	float64(1 << 60), float64(1 << 62), float64(1 << 63), -float64(1 << 63), math.NaN(), math.Inf(-1), math.Copysign(0, -1), 127, 128, 65536.0}

func (g *valueGen) value(depth int) any {
	c := g.next()
	if depth > 5 && c%16 >= 7 && c%16 <= 8 {
		c = 2
	}
	switch c % 16 {
	case 0:
		return nil
	case 1:
		return g.next()&1 == 1
	case 2, 14:
		return genKeys[int(g.next())%len(genKeys)]
	case 3:
		return int64(int8(g.next()))
	case 4:
		return int(g.next())
	case 5, 15:
		return genFloats[int(g.next())%len(genFloats)]
	case 6:
		return json.Number([]string{"1", "1.5", "1e3", "x", ""}[g.next()%5])
	case 7:
		m := map[string]any{}
		for n := g.next() % 5; n > 0; n-- {
			m[genKeys[int(g.next())%len(genKeys)]] = g.value(depth + 1)
		}
		return m
	case 8:
		var l []any
		for n := g.next() % 4; n > 0; n-- {
			l = append(l, g.value(depth+1))
		}
		if l == nil {
			return []any{}
		}
		return l
	case 9:
		return map[string]any(nil)
	case 10:
		return []any(nil)
	case 11:
		return int32(g.next())
	case 12:
		var u uint64
		for range 8 {
			u = u<<8 | uint64(g.next())
		}
		return math.Float64frombits(u)
	}
	return "a\xffb"
}

// fuzzSeeds are documents like meshguard's inputs: the repository's examples and a
// few hand-written specs with the numbers and nulls that stress the conversion.
func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		`{"targetRef":{"kind":"Dataplane","labels":{"app":"backend"}},"from":[{"targetRef":{"kind":"MeshSubset","tags":{"kuma.io/service":"frontend"}},"default":{"action":"Allow"}}]}`,
		`{"rules":[{"default":{"allow":[{"spiffeID":{"type":"Exact","value":"spiffe://a"}}],"deny":[]}}],"default":{"allowWithShadowDeny":null}}`,
		`{"to":[{"targetRef":{"kind":"MeshService","name":"b"},"rules":[{"matches":[{"path":{"type":"Prefix","value":"/"}}],"default":{"backendRefs":[{"kind":"MeshService","name":"b","port":8080,"weight":1.0}]}}]}]}`,
		`{"to":[{"targetRef":{"kind":"Mesh"},"default":{"connectionTimeout":"5s","http":{"requestTimeout":1e3}}}],"default":{"a":1.5,"b":1e21,"c":-0,"d":9223372036854775808,"e":4611686018427387904.0}}`,
		`{"port":8080,"podSelector":{"matchLabels":{"app":"x"},"matchExpressions":[{"key":"k","operator":"In","values":["a",null]}]}}`,
		`{"server":{"name":"s"},"client":{"meshTLS":{"serviceAccounts":[{"name":"a"}]},"networks":[{"cidr":"10.0.0.0/8","except":[]}],"unauthenticated":true}}`,
		"spec:\n  targetRef: {kind: Mesh}\n  to:\n    - targetRef: {kind: Mesh}\n      default: {n: 0x10, o: 0o17, f: .5, i: .inf, t: 2001-12-14, big: 18446744073709551615, y: yes, 1: one}\n",
		"a: &a {kind: Mesh, labels: {x: y}}\nspec:\n  targetRef: *a\n  from:\n    - targetRef: {<<: *a, name: n}\n      default: {action: Allow}\n",
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../examples/*/*.yaml")
	more, _ := filepath.Glob("../examples/linkerd/*/*.yaml")
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			f.Add([]byte(doc))
		}
	}
}

// FuzzDecode checks that Decode and the reference round trip agree for values
// decoded from JSON and YAML documents and for generated values, into every spec type.
func FuzzDecode(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, v := range append(docValues(doc), genValue(doc)) {
			sameForAllTypes(t, v)
		}
	})
}

// BenchmarkDecode compares Decode with the reference round trip on the checked spec
// of the webhook load test's MeshTrafficPermission, as validate decodes it.
func BenchmarkDecode(b *testing.B) {
	typ := reflect.TypeFor[MeshTrafficPermissionSpec]()
	clean := Check(typ, mtpSpec(), field.NewPath("spec")).Clean
	for _, bc := range []struct {
		name   string
		decode func(any, any) error
	}{{"direct", Decode}, {"roundtrip", decodeRoundTrip}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var spec MeshTrafficPermissionSpec
				if err := bc.decode(clean, &spec); err != nil || len(spec.From) != 2 {
					b.Fatal(errors.Join(err, fmt.Errorf("decoded %+v", spec)))
				}
			}
		})
	}
}

// TestDecodeDirectPath checks which inputs take the direct conversion, so that a
// change that quietly sends everything through the round trip is noticed.
func TestDecodeDirectPath(t *testing.T) {
	for _, tc := range []struct {
		name   string
		v      any
		out    any
		direct bool
	}{
		{"mtp", mtpSpec(), &MeshTrafficPermissionSpec{}, true},
		{"policy", mtpSpec(), &PolicySpec{}, true},
		{"server", map[string]any{"port": int64(80), "podSelector": map[string]any{}}, &ServerSpec{}, true},
		{"null", nil, &ServerSpec{}, true},
		{"free numbers", map[string]any{"default": []any{1.0, 0.5, 1e300}}, &PolicySpec{}, true},
		{"bad key", map[string]any{"targetRef": map[string]any{"tags": map[string]any{"\xff": "x"}}}, &PolicySpec{}, false},
		{"wrong type", map[string]any{"targetRef": "Mesh"}, &PolicySpec{}, false},
		{"nan", map[string]any{"default": math.NaN()}, &PolicySpec{}, false},
		{"unsupported type", map[string]any{}, &withRaw{}, false},
		{"non-zero", mtpSpec(), &PolicySpec{Default: 1}, false},
	} {
		if got := decodeDirect(tc.v, tc.out); got != tc.direct {
			t.Errorf("%s: direct %v, want %v", tc.name, got, tc.direct)
		}
		if !tc.direct && tc.name != "non-zero" && !reflect.ValueOf(tc.out).Elem().IsZero() {
			t.Errorf("%s: a failed direct conversion left %+v", tc.name, tc.out)
		}
	}
}
