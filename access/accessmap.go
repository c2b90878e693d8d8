package access

// The access map (`meshguard map`): every destination of the input against
// every client class, with the answer `check` gives for each pair. Destinations
// with identical rows and clients with identical columns share a class, and a
// cell is stored once per (destination class, client class), so the map grows
// with the number of distinct classes, not with workloads². Every renderer
// (csv, json, markdown, dot, html) reads this one model; its JSON is documented
// in docs/map.md — change it only compatibly and bump MapVersion when not.

// MapVersion is the JSON shape's version, written as Map.Version.
const MapVersion = 1

// Kinds of MapClient: a workload of the input, or a class of callers that no
// workload of the input stands for.
const (
	ClientWorkload        = "workload"
	ClientUnauthenticated = "unauthenticated"
	ClientOtherMesh       = "other-mesh"
	ClientNetwork         = "network"
	// ClientOtherService is a caller of the mesh whose service no workload of
	// the input has (Kuma).
	ClientOtherService = "other-service"
	// ClientNamed is an identity the policies name (Kuma: a `from` item's
	// tags or an Exact SPIFFE ID; Linkerd: a ServiceAccount or identity) that
	// no workload of the input presents.
	ClientNamed = "named"
)

// Map is the access matrix of one mesh's input.
type Map struct {
	Version int `json:"version"`
	// Mesh is "kuma" or "linkerd".
	Mesh         string           `json:"mesh"`
	Destinations []MapDestination `json:"destinations"`
	Clients      []MapClient      `json:"clients"`
	// Cells holds one cell per (destination class, client class) pair; a pair
	// missing here was not judged (Notes says why).
	Cells []MapCell `json:"cells"`
	// Notes says what the map could not judge or assumed (a bound reached, a
	// workload without a port).
	Notes []string `json:"notes,omitempty"`
}

// MapDestination is one row: a destination proxy (Kuma Dataplane or workload;
// Linkerd workload) and port.
type MapDestination struct {
	// ID is stable across runs of the same input ("ns/workload:port", or
	// "mesh/dataplane:port" in Universal), so a change between two maps and a
	// link in the HTML can name a row.
	ID   string `json:"id"`
	Peer Peer   `json:"peer"`
	// Class is the index of the row's class: rows with the same class have the
	// same verdict and deciding rule for every client.
	Class int `json:"class"`
}

// MapClient is one column: a client identity of the input or a class of
// callers that is not a workload (Kind).
type MapClient struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Peer Peer   `json:"peer"`
	// Class is the index of the column's class, as MapDestination.Class.
	Class int `json:"class"`
}

// MapCell is the answer for every destination of class DestinationClass
// against every client of class ClientClass: `check`'s answer for the first
// destination and first client of those classes; the decision and deciding
// items hold for all. Its JSON is that answer whole ({"destinationClass",
// "clientClass", "answer"}), but in memory a cell is four words: most cells of
// a large map repeat a handful of answers (a row class's clients fall in a
// few local classes), so cells share one Answer per distinct decision and one
// Peer per client class instead of each holding a 700-byte copy (issue 31:
// the 200,000 cells of a 2,000-workload map were 150 MB of copies).
type MapCell struct {
	DestinationClass int `json:"destinationClass"`
	ClientClass      int `json:"clientClass"`
	// Answer is the cell's answer without its client (Answer.Client is not
	// set), shared by other cells: change it only through a cell of its own
	// (NewMapCell).
	Answer *Answer `json:"-"`
	// Client is the answer's client, as check names it, shared by the cells of
	// the client class.
	Client *Peer `json:"-"`
}

// Kinds of MapCellChange.// Kinds of MapCellChange.
const (
	CellOpened = "opened"
	CellClosed = "closed"
	CellRule   = "rule-changed"
	CellShadow = "shadow-changed"
)

// MapChange is what a change of input does to the map (`meshguard map OLD NEW`):
// both maps whole, and the cells that open, close, or keep their verdict under
// another deciding rule, by destination and client ID.
type MapChange struct {
	Version int             `json:"version"`
	Old     *Map            `json:"old"`
	New     *Map            `json:"new"`
	Changes []MapCellChange `json:"changes"`
}

// MapCellChange is one destination/client pair whose cell changed. A pair
// whose destination or client exists on one side only compares against that
// side's answer and a missing one (Old or New nil).
type MapCellChange struct {
	Kind        string  `json:"kind"`
	Destination string  `json:"destination"`
	Client      string  `json:"client"`
	Old         *Answer `json:"old,omitempty"`
	New         *Answer `json:"new,omitempty"`
}

// Cell returns the cell of destination d and client c, and whether the map
// judged that pair.
func (m *Map) Cell(d MapDestination, c MapClient) (MapCell, bool) {
	for _, cell := range m.Cells {
		if cell.DestinationClass == d.Class && cell.ClientClass == c.Class {
			return cell, true
		}
	}
	return MapCell{}, false
}

// CellsByClass indexes the cells by destination class and client class, so a
// renderer looks a pair up in constant time ([2]int{d.Class, c.Class}).
func (m *Map) CellsByClass() map[[2]int]*MapCell {
	out := make(map[[2]int]*MapCell, len(m.Cells))
	for i := range m.Cells {
		c := &m.Cells[i]
		out[[2]int{c.DestinationClass, c.ClientClass}] = c
	}
	return out
}
