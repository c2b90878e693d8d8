package lint

// chunkSize is the length of each array a chunks list holds.
const chunkSize = 4096

// chunks is an append-only list kept in fixed-size arrays: a run keeps a few
// entries per document to its end, and a slice grown by doubling copied them at
// every doubling and held up to as much spare capacity again (294,000
// documents: a 524,288-entry array for 294,000 places).
type chunks[T any] struct {
	parts [][]T
	n     int
}

// add appends v.
func (c *chunks[T]) add(v T) {
	if c.n%chunkSize == 0 {
		c.parts = append(c.parts, make([]T, 0, chunkSize))
	}
	last := &c.parts[len(c.parts)-1]
	*last = append(*last, v)
	c.n++
}

// len is the number of entries added.
func (c *chunks[T]) len() int { return c.n }

// at is entry i.
func (c *chunks[T]) at(i int) *T { return &c.parts[i/chunkSize][i%chunkSize] }

// release drops the chunk before the one entry i is in, once read: the finish
// of a run reads each list once, in order, calling release for every entry.
func (c *chunks[T]) release(i int) {
	if i > 0 && i%chunkSize == 0 {
		c.parts[i/chunkSize-1] = nil
	}
}

// findingMeta are the parts of a finding that many findings of a run share:
// the file, the object's apiVersion and kind, and the rule that fired where.
type findingMeta struct {
	file, apiVersion, kind, severity, code, field, renderedBy string
}

// keptFinding is a finding as a run keeps it until its end: the shared parts
// as an index into keptStore.metas, the rest as they are (a Finding is 184
// bytes of string headers, this 72).
type keptFinding struct {
	namespace, name, message string
	suppression              *Suppression
	meta                     uint32
	line, renderedLine       int32
}

// placeMeta are the parts of a document's place that many documents share.
type placeMeta struct {
	group, kind, file, render string
}

// keptPlace is a placed as a run keeps it until its end (48 bytes, not 120).
type keptPlace struct {
	namespace, name string
	meta            uint32
	line            int32
	ok, denied      bool
}

// keptSummary is one stage's summary of one document.
type keptSummary struct {
	doc   int32 // index into keptStore.places
	stage int32
	v     any
}

// keptStore is what a run keeps of its documents until finish: their places,
// the stages' summaries and the findings, compactly, with the parts documents
// repeat stored once.
type keptStore struct {
	places    chunks[keptPlace]
	summaries chunks[keptSummary]
	findings  chunks[keptFinding]
	metas     metaTable[findingMeta]
	pmetas    metaTable[placeMeta]
	strs      interner
}

// metaTable stores each distinct part that many findings or places repeat once,
// and gives it an index.
type metaTable[T comparable] struct {
	list  []T
	index map[T]uint32
}

// of returns the index of m, storing m when the table has no equal one.
func (t *metaTable[T]) of(m T) uint32 {
	i, ok := t.index[m]
	if !ok {
		if t.index == nil {
			t.index = map[T]uint32{}
		}
		i = uint32(len(t.list))
		t.list = append(t.list, m)
		t.index[m] = i
	}
	return i
}

// at is the part of index i.
func (t *metaTable[T]) at(i uint32) *T { return &t.list[i] }

// keepFinding stores f.
func (k *keptStore) keepFinding(f *Finding) {
	i := k.metas.of(findingMeta{f.File, f.APIVersion, f.Kind, f.Severity, f.Code, f.Field, f.RenderedBy})
	k.findings.add(keptFinding{namespace: k.strs.of(f.Namespace), name: f.Name, message: f.Message,
		suppression: f.Suppression, meta: i, line: clampLine(f.Line), renderedLine: clampLine(f.RenderedLine)})
}

// finding is kept finding i as a Finding.
func (k *keptStore) finding(i int) Finding {
	kf := k.findings.at(i)
	m := k.metas.at(kf.meta)
	return Finding{File: m.file, Line: int(kf.line), APIVersion: m.apiVersion, Kind: m.kind, Namespace: kf.namespace,
		Name: kf.name, Severity: m.severity, Code: m.code, Field: m.field, Message: kf.message,
		RenderedBy: m.renderedBy, RenderedLine: int(kf.renderedLine), Suppression: kf.suppression}
}

// keepPlace stores p and returns its index.
func (k *keptStore) keepPlace(p placed) int32 {
	i := k.pmetas.of(placeMeta{p.id.Group, p.id.Kind, p.file, p.group})
	k.places.add(keptPlace{namespace: k.strs.of(p.id.Namespace), name: p.id.Name, meta: i, line: clampLine(p.line), ok: p.ok, denied: p.denied})
	return int32(k.places.len() - 1)
}

// place is kept place i as a placed.
func (k *keptStore) place(i int) placed {
	kp := k.places.at(i)
	m := k.pmetas.at(kp.meta)
	return placed{id: ObjectID{Group: m.group, Kind: m.kind, Namespace: kp.namespace, Name: kp.name}, ok: kp.ok,
		file: m.file, line: int(kp.line), denied: kp.denied, group: m.render}
}
