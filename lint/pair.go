package lint

import "bytes"

// LoadPair reads the two sides of a diff, as LoadAll reads each. The sides of a
// review share nearly all of their documents, so a document whose bytes are the
// same on both sides is parsed once, and the engine's judgement on it (defaults,
// validation) is taken once and shared: the NEW side's Document is a copy with its
// own file and lines, holding the same object. That is exact because parsing
// reads the bytes alone and the judgement the object and the options alone; callers
// must judge both sides with the same Options and must not change the objects
// otherwise (Preview, KumaObjects and the readers of their results do not).
// Documents that could not be parsed are parsed again on each side, so each
// side's error names its own line.
func LoadPair(oldPaths, newPaths []string, o LoadOptions) (oldSide, newSide Loaded) {
	var olds, news []unit
	eachUnit(oldPaths, nil, o, func(u unit) { olds = append(olds, u) })
	eachUnit(newPaths, nil, o, func(u unit) { news = append(news, u) })
	twins := twinUnits(olds, news)
	parseUnits(olds, o.NoFieldLines)
	for i, t := range twins {
		if t.old >= 0 {
			news[i].shareFrom(&olds[t.old], t.shift)
		}
	}
	parseUnits(news, o.NoFieldLines)
	return collect(olds), collect(news)
}

// twin is the OLD unit a NEW unit has the same bytes as (old < 0: none) and how
// many lines further down its file the NEW one starts.
type twin struct {
	old, shift int
}

// twinUnits pairs every NEW chunk with an OLD chunk of identical bytes, each OLD
// chunk with at most one NEW chunk (a document repeated on one side is parsed
// again, so the objects of one side are never shared between its documents). A
// bare "---" line that starts a chunk is left out of the comparison: the first
// document of a file has none, and a document that moves there is the same.
func twinUnits(olds, news []unit) []twin {
	byBytes := map[string][]int{}
	for i := range olds {
		if olds[i].plainChunk() {
			k, _ := olds[i].chunk.content()
			byBytes[k] = append(byBytes[k], i)
		}
	}
	out := make([]twin, len(news))
	for i := range news {
		out[i].old = -1
		if !news[i].plainChunk() {
			continue
		}
		k, line := news[i].chunk.content()
		if at := byBytes[k]; len(at) > 0 {
			_, oldLine := olds[at[0]].chunk.content()
			out[i] = twin{old: at[0], shift: line - oldLine}
			byBytes[k] = at[1:]
		}
	}
	return out
}

// content is a chunk's bytes without a bare "---" line at its start, and the
// line of the file they start on.
func (c chunk) content() (string, int) {
	if rest, ok := bytes.CutPrefix(c.data, []byte("---\n")); ok {
		return string(rest), c.line + 1
	}
	return string(c.data), c.line
}

// plainChunk reports whether u is a piece of a file still to parse (not a file
// that could not be read, an oversized chunk or rendered documents).
func (u *unit) plainChunk() bool {
	return !u.done && u.err == nil && u.oversize == 0 && len(u.chunk.data) > 0
}

// shareFrom gives u the documents of its parsed twin, shift lines further down,
// when all of them could be parsed; each shared object gets one judgement for both.
func (u *unit) shareFrom(twin *unit, shift int) {
	for _, d := range twin.docs {
		if d.Err != nil {
			return
		}
	}
	docs := make([]Document, len(twin.docs))
	for i := range twin.docs {
		d := &twin.docs[i]
		if d.Object != nil && d.shared == nil {
			d.shared = &judgement{}
		}
		docs[i] = *d
		docs[i].Line += shift
		docs[i].lines.offset += shift
	}
	u.docs, u.parsed = docs, true
	u.chunk = chunk{}
}
