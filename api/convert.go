package api

import (
	"encoding/json"

	sigsjson "sigs.k8s.io/json"
)

// Decode converts a checked value into out (a pointer to a typed struct) with
// case-sensitive keys. Call it on CheckResult.Clean: then it cannot fail on types.
// It is json.Marshal followed by sigs.k8s.io/json's case-sensitive, int-preserving
// Unmarshal, which is what the API server's decoding does.
func Decode(v any, out any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(data, out)
}
