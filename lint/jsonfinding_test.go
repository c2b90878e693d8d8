package lint

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestFindingJSONIsTheEncoders: appendFindingJSON writes what json.Encoder
// (SetEscapeHTML(false), SetIndent("    ", "  ")) writes for every finding,
// with strings that need every kind of escape, omitted and present optional
// fields, and a suppression with and without an expiry.
func TestFindingJSONIsTheEncoders(t *testing.T) {
	texts := []string{"", "plain", `q"uote\back`, "<a&b>", "tab\tnl\nret\rbs\bff\f",
		"\x00\x01\x1f\x7f", "bad \xff utf8 \xc3", "sep \u2028 and \u2029", "ünïcödé ✓ 😀"}
	rng := rand.New(rand.NewPCG(27, 5))
	for i := 0; i < 200; i++ {
		b := make([]byte, rng.IntN(12))
		for j := range b {
			b[j] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	pick := func() string { return texts[rng.IntN(len(texts))] }
	for i := 0; i < 2000; i++ {
		f := Finding{File: pick(), Line: rng.IntN(3) * rng.IntN(100000), APIVersion: pick(), Kind: pick(),
			Namespace: pick(), Name: pick(), Severity: pick(), Code: pick(), Field: pick(), Message: pick(),
			RenderedBy: pick(), RenderedLine: rng.IntN(3) * rng.IntN(1000)}
		if i%3 == 0 {
			f.Suppression = &Suppression{Kind: pick(), Justification: pick(), Source: pick(), Expires: pick()}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("    ", "  ")
		if err := enc.Encode(f); err != nil {
			t.Fatal(err)
		}
		got := appendFindingJSON(nil, &f)
		if w := bytes.TrimSuffix(want.Bytes(), []byte("\n")); !bytes.Equal(got, w) {
			t.Fatalf("finding %d:\n got %q\nwant %q", i, got, w)
		}
	}
}
