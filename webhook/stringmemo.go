package webhook

import (
	"hash/maphash"
	"sync"

	"github.com/meshguard/meshguard/internal/fastjson"
)

// Bounds of a stringMemo. Only long strings are worth it (hashing one costs a
// fraction of escaping it); a memo past its bounds starts again empty.
const (
	memoMinLen     = 1024
	memoMaxEntries = 1024
	memoMaxBytes   = 16 << 20
	memoMaxSeen    = 8192
)

// stringMemo writes long strings as JSON strings (fastjson.AppendString),
// remembering the JSON of each one it writes a second time. A verdict-cache hit
// answers with the same rbac-preview annotation again and again (6 KB for the
// load test's policy, a quote to escape every ten bytes), and escaping it was
// the largest part of writing the answer: ~20 µs of the codec's 43 µs for a hit.
//
// A string seen once leaves only its hash (a new policy's annotation is never
// written again, and must not crowd out those that are); one seen again is kept
// with its JSON, and a hit compares the whole string, so a hash collision costs
// an escape, never a wrong answer. The output is AppendString's, byte for byte.
type stringMemo struct {
	seed  maphash.Seed
	mu    sync.Mutex
	seen  map[uint64]struct{}
	known map[uint64]memoEntry
	bytes int
}

type memoEntry struct {
	s    string
	json []byte
}

func newStringMemo() *stringMemo {
	return &stringMemo{seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}, known: map[uint64]memoEntry{}}
}

// appendString appends s as a JSON string; m may be nil (no memo).
func (m *stringMemo) appendString(dst []byte, s string) []byte {
	if m == nil || len(s) < memoMinLen {
		return fastjson.AppendString(dst, s)
	}
	h := maphash.String(m.seed, s)
	m.mu.Lock()
	e, known := m.known[h]
	_, seen := m.seen[h]
	m.mu.Unlock()
	if known && e.s == s {
		return append(dst, e.json...)
	}
	start := len(dst)
	dst = fastjson.AppendString(dst, s)
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case known:
		// Another string with the same hash: keep the first.
	case seen:
		if len(m.known) >= memoMaxEntries || m.bytes+len(s)+len(dst)-start > memoMaxBytes {
			clear(m.known)
			m.bytes = 0
		}
		m.known[h] = memoEntry{s: s, json: append([]byte(nil), dst[start:]...)}
		m.bytes += len(s) + len(dst) - start
		delete(m.seen, h)
	default:
		if len(m.seen) >= memoMaxSeen {
			clear(m.seen)
		}
		m.seen[h] = struct{}{}
	}
	return dst
}
