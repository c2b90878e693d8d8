package api

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestAppendJSONIsJSONMarshal: Decode's encoder writes exactly json.Marshal's bytes
// for every value it takes (edge strings and numbers, and random objects), and
// declines what it does not take, so Decode decodes what it always decoded.
func TestAppendJSONIsJSONMarshal(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", "q\"b\\s/", "<a href='x'>&amp;</a>", "\b\f\n\r\t\x00\x01\x1f\x7f",
		"é ü 日本 \u2028 \u2029 😀", int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), 7,
		0.0, math.Copysign(0, -1), 1.5, -2.25, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789e15, 1e-300, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 3.0, 0.1, 1.0 / 3, []any(nil), map[string]any(nil), []any{}, map[string]any{},
		map[string]any{"b": 1.5, "a": []any{"x", nil, map[string]any{"z<": true, "Z": "y", "": int64(2)}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		values = append(values, randomValue(r, 0))
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendJSON(nil, v, 0)
		if !ok || string(got) != string(want) {
			t.Errorf("%#v:\n got %s (ok %v)\nwant %s", v, got, ok, want)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), "bad \xff utf-8", map[string]any{"a": []string{"x"}}, struct{}{}, float32(1)} {
		if _, ok := appendJSON(nil, v, 0); ok {
			t.Errorf("%#v: taken, json.Marshal should decide", v)
		}
	}
	var deep any = "x"
	for range maxJSONDepth + 5 {
		deep = []any{deep}
	}
	if _, ok := appendJSON(nil, deep, 0); ok {
		t.Error("a value nested past maxJSONDepth was taken")
	}
}

func randomValue(r *rand.Rand, depth int) any {
	n := r.IntN(9)
	if depth > 4 {
		n %= 6
	}
	switch n {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randomString(r)
	case 3:
		return r.Int64() - r.Int64()
	case 4:
		return math.Float64frombits(r.Uint64()&^(0x7ff<<52) | uint64(r.IntN(0x7fe))<<52)
	case 5:
		return float64(r.IntN(1e6)) / float64(1+r.IntN(1000))
	case 6, 7:
		m := map[string]any{}
		for range r.IntN(6) {
			m[randomString(r)] = randomValue(r, depth+1)
		}
		return m
	}
	l := make([]any, r.IntN(5))
	for i := range l {
		l[i] = randomValue(r, depth+1)
	}
	return l
}

func randomString(r *rand.Rand) string {
	const alphabet = "abcXYZ09 _-./:<>&\"\\\n\t\x01é日\u2028😀"
	runes := []rune(alphabet)
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}
