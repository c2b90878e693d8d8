package webhook

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"math"
	"slices"
	"sync"
)

// Bounds of the preview result cache. An entry is a few warning lines and a compact
// rbac-preview annotation, a few KB for a policy that shares its proxies with a
// handful of others, so the byte bound is what limits a cluster of large groups.
const (
	// MaxPreviewResults is how many answers the preview keeps (load tests that
	// want every preview compiled send more distinct objects than this).
	MaxPreviewResults = 2048
	maxResultBytes    = 16 << 20
	// entryOverhead approximates the bookkeeping of one entry (list element, map
	// slot, key, slice and string headers) for the byte bound.
	entryOverhead = 160
)

// resultKey identifies one preview answer: a SHA-256 over what the preview reads of
// the incoming object and the version of the stored-policy set it merged with.
type resultKey [sha256.Size]byte

// previewResult is what a PreviewFunc returns.
type previewResult struct {
	lines      []string
	annotation string
}

// size is the entry's weight against maxResultBytes.
func (r previewResult) size() int {
	n := entryOverhead + len(r.annotation)
	for _, l := range r.lines {
		n += 16 + len(l)
	}
	return n
}

// resultCache is a content-addressed LRU of preview answers, safe for concurrent
// use, bounded in entries and in bytes.
//
// Why it pays: the API server sends the same object many times — `kubectl apply`
// re-applying unchanged manifests, GitOps controllers reconciling identical objects
// every few minutes, a dry run followed by the real request, and the validating
// webhook being called again after mutating reinvocation. The answer depends only on
// the object's kind, namespace, name, labels and spec, on the stored policies it is
// merged with and on the compile options (fixed per cache), so an identical
// (object, stored set) pair gets the identical answer. Any change to the object, or
// a write of any stored MeshTrafficPermission (its resourceVersion changes, and with
// it the set version), gives a new key; stale entries age out of the LRU.
type resultCache = lruCache[previewResult]

func newResultCache(maxEntries, maxBytes int) *resultCache {
	return newLRU(maxEntries, maxBytes, previewResult.size, func(v previewResult) previewResult {
		return previewResult{lines: slices.Clone(v.lines), annotation: v.annotation}
	})
}

// lruCache maps content keys to values, least recently used out first, bounded in
// entries and in bytes (as the size function weighs them), safe for concurrent use.
// Values go in and out through clone, so callers never share mutable parts with it.
type lruCache[V any] struct {
	maxEntries, maxBytes int
	size                 func(V) int
	clone                func(V) V

	mu    sync.Mutex
	bytes int
	lru   *list.List // of *lruEntry[V], most recently used first
	index map[resultKey]*list.Element
}

type lruEntry[V any] struct {
	key  resultKey
	val  V
	size int
}

func newLRU[V any](maxEntries, maxBytes int, size func(V) int, clone func(V) V) *lruCache[V] {
	return &lruCache[V]{maxEntries: maxEntries, maxBytes: maxBytes, size: size, clone: clone,
		lru: list.New(), index: map[resultKey]*list.Element{}}
}

// get returns a copy of the value cached under k.
func (c *lruCache[V]) get(k resultKey) (V, bool) {
	c.mu.Lock()
	el, ok := c.index[k]
	if !ok {
		c.mu.Unlock()
		var zero V
		return zero, false
	}
	c.lru.MoveToFront(el)
	v := el.Value.(*lruEntry[V]).val
	c.mu.Unlock()
	return c.clone(v), true
}

// put stores a copy of v under k, evicting the least recently used entries past the
// bounds. A value larger than a sixteenth of the byte bound is not kept, so one
// huge answer cannot flush everything else.
func (c *lruCache[V]) put(k resultKey, v V) {
	size := c.size(v)
	if size > c.maxBytes/16 {
		return
	}
	v = c.clone(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[k]; ok {
		// A concurrent miss computed the same answer first.
		c.lru.MoveToFront(el)
		return
	}
	c.index[k] = c.lru.PushFront(&lruEntry[V]{key: k, val: v, size: size})
	c.bytes += size
	for c.lru.Len() > c.maxEntries || c.bytes > c.maxBytes {
		el := c.lru.Back()
		e := el.Value.(*lruEntry[V])
		c.lru.Remove(el)
		delete(c.index, e.key)
		c.bytes -= e.size
	}
}

// len reports the number of entries and their total weight.
func (c *lruCache[V]) len() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}

// keyHasher encodes values for a SHA-256 in a canonical, type-tagged form: map keys
// sorted, strings length-prefixed, every value preceded by its type. It is canonical
// JSON in spirit, but int64(1) and float64(1) (which an object read by encoding/json
// and one built in Go hold) stay distinct, so two keys are equal only when the
// values are. The encoding is collected in a buffer and hashed once.
type keyHasher struct {
	buf []byte
	// h takes what bytes writes directly, and then the rest of buf; nil until then.
	h hash.Hash
}

func newKeyHasher() *keyHasher { return &keyHasher{buf: make([]byte, 0, 1024)} }

// Type tags of the encoding.
const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagString
	tagInt
	tagGoInt
	tagFloat
	tagMap
	tagList
	tagStringMap
	tagStringList
)

func (k *keyHasher) tag(t byte) { k.buf = append(k.buf, t) }

func (k *keyHasher) uvarint(n uint64) { k.buf = binary.AppendUvarint(k.buf, n) }

func (k *keyHasher) str(s string) {
	k.uvarint(uint64(len(s)))
	k.buf = append(k.buf, s...)
}

// bytes encodes b length-prefixed, writing it straight into the hash rather than
// copying it into buf (request objects are kilobytes).
func (k *keyHasher) bytes(b []byte) {
	k.uvarint(uint64(len(b)))
	if k.h == nil {
		k.h = sha256.New()
	}
	k.h.Write(k.buf)
	k.buf = k.buf[:0]
	k.h.Write(b)
}

// value encodes v; ok=false for a type an unstructured object does not hold, whose
// equality the encoding cannot vouch for (the caller then does not cache).
func (k *keyHasher) value(v any) bool {
	switch v := v.(type) {
	case nil:
		k.tag(tagNil)
	case bool:
		if v {
			k.tag(tagTrue)
		} else {
			k.tag(tagFalse)
		}
	case string:
		k.tag(tagString)
		k.str(v)
	case int64:
		k.tag(tagInt)
		k.uvarint(uint64(v))
	case int:
		k.tag(tagGoInt)
		k.uvarint(uint64(int64(v)))
	case float64:
		k.tag(tagFloat)
		k.uvarint(math.Float64bits(v))
	case map[string]any:
		k.tag(tagMap)
		k.uvarint(uint64(len(v)))
		for _, key := range sortedKeys(v) {
			k.str(key)
			if !k.value(v[key]) {
				return false
			}
		}
	case []any:
		k.tag(tagList)
		k.uvarint(uint64(len(v)))
		for _, e := range v {
			if !k.value(e) {
				return false
			}
		}
	case map[string]string:
		k.tag(tagStringMap)
		k.uvarint(uint64(len(v)))
		for _, key := range sortedKeys(v) {
			k.str(key)
			k.str(v[key])
		}
	case []string:
		k.tag(tagStringList)
		k.uvarint(uint64(len(v)))
		for _, e := range v {
			k.str(e)
		}
	default:
		return false
	}
	return true
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for key := range m {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	return keys
}

func (k *keyHasher) sum() resultKey {
	if k.h == nil {
		return sha256.Sum256(k.buf)
	}
	var r resultKey
	k.h.Write(k.buf)
	k.h.Sum(r[:0])
	return r
}
