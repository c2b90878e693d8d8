// model.js reads the embedded map (or change of maps) into the rows, columns
// and cells the view draws. A row is one destination; a column is one class of
// clients (in a change, one pair of old and new classes), so every client of a
// column gets the same answer from every destination, and one lookup per row and
// column gives the cell. Nothing here touches the DOM.

var CLIENT_KINDS = ['workload', 'named', 'other-service', 'unauthenticated', 'other-mesh', 'network'];
var KIND_LABELS = {
  'workload': 'workloads', 'named': 'named by policies, no workload', 'other-service': 'other services',
  'unauthenticated': 'unauthenticated', 'other-mesh': 'another mesh', 'network': 'networks'
};

// cellIndex reads one map's cells by destination class: the answer of each
// client class a cell lists, and the answer (others) of every class no other
// cell of that destination class lists (map version 2, docs/map.md). A row keeps
// these sparse cells; nothing expands them to rows times columns. Given
// colOf (client class to column index, where they are one to one) and cell,
// it also keeps each row's cells by column: the row's exceptions, ready to use.
function cellIndex(m, colOf, cell) {
  var byDest = new Map();
  var none = { listed: new Map(), others: undefined, cells: new Map() };
  ((m && m.cells) || []).forEach(function (c) {
    var e = byDest.get(c.destinationClass);
    if (!e) { e = { listed: new Map(), others: undefined, cells: new Map() }; byDest.set(c.destinationClass, e); }
    if (c.others) { e.others = c.answer; return; }
    var made = colOf ? cell(c.answer) : null;
    (c.clientClasses || []).forEach(function (k) {
      e.listed.set(k, c.answer);
      if (colOf && colOf[k] !== undefined) { e.cells.set(colOf[k], made); }
    });
  });
  // row is the sparse row of destination class d (empty for -1 or unknown).
  return { row: function (d) { return byDest.get(d) || none; } };
}

// namespaceOf is a peer's namespace, else the part of its ID before the slash.
function namespaceOf(id, peer) {
  if (peer && peer.namespace) { return peer.namespace; }
  var i = id.indexOf('/');
  return i > 0 ? id.slice(0, i) : '';
}

// collect merges the destinations (or clients) of both sides by ID, keeping
// each side's class (-1 where the ID is missing on that side).
function collect(list, maps) {
  var out = [], byID = new Map();
  maps.forEach(function (side) {
    ((side.map && side.map[list]) || []).forEach(function (d) {
      var e = byID.get(d.id);
      if (!e) {
        e = { id: d.id, kind: d.kind || 'workload', peer: d.peer || {}, newCls: -1, oldCls: -1 };
        byID.set(d.id, e);
        out.push(e);
      }
      e[side.field] = d['class'];
    });
  });
  return out;
}

function policyText(a) {
  if (!a) { return ''; }
  var s = (a.decidedBy && a.decidedBy.policy) || '';
  if (a.shadowDecidedBy) { s += ' ' + a.shadowDecidedBy.policy; }
  return s.toLowerCase();
}

// verdictOf is ALLOW, DENY or none (the map did not judge the pair).
function verdictOf(a) { return a ? a.decision : 'none'; }

function shadowDiffers(a) { return !!(a && a.shadowDecision && a.shadowDecision !== a.decision); }

// columns groups the clients into columns by class key, workloads first, then
// the kinds of callers that are not workloads of the input.
function columns(clients, keyOf) {
  var cols = [], colByKey = new Map();
  clients.forEach(function (c) {
    var key = keyOf(c);
    var col = colByKey.get(key);
    if (!col) {
      col = { key: key, kind: c.kind, members: [], newCls: c.newCls, oldCls: c.oldCls };
      colByKey.set(key, col);
      cols.push(col);
    }
    col.members.push(c);
  });
  var rank = function (k) { var i = CLIENT_KINDS.indexOf(k); return i < 0 ? CLIENT_KINDS.length : i; };
  cols = cols.map(function (c, i) { return [c, i]; })
    .sort(function (a, b) { return rank(a[0].kind) - rank(b[0].kind) || a[1] - b[1]; })
    .map(function (p) { return p[0]; });
  cols.forEach(function (col, i) {
    col.index = i;
    col.rep = col.members[0];
    col.text = col.members.map(function (m) { return m.id; }).join('\n').toLowerCase();
    col.changed = 0;
  });
  return cols;
}

// cellMaker makes the cell objects of one model: a cell is the answer now
// (and before, in a change), its verdict, whether its shadow decision differs,
// and its change. In a map, cells of one answer are one object.
function cellMaker(change) {
  var byAnswer = new Map();
  return function (a, old, ch) {
    if (!change && byAnswer.has(a)) { return byAnswer.get(a); }
    var c = { answer: a, verdict: verdictOf(a), shadow: shadowDiffers(a), policies: policyText(a) };
    if (change) {
      c.old = old;
      c.change = ch;
      if (old) { c.policies += ' ' + policyText(old); }
    } else {
      byAnswer.set(a, c);
    }
    return c;
  };
}

// colsByClass indexes the columns by one side's client class (in a change, one
// class of a side can be in several columns).
function colsByClass(cols, field) {
  var m = new Map();
  cols.forEach(function (col) {
    if (!m.has(col[field])) { m.set(col[field], []); }
    m.get(col[field]).push(col);
  });
  return m;
}

// answerIn is a sparse row's answer for client class k: the cell that lists
// k, else the row's default; none for a client missing on that side.
function answerIn(row, k) {
  if (k < 0) { return undefined; }
  return row.listed.has(k) ? row.listed.get(k) : row.others;
}

// rowClass fills in what the rows of one key share: the default cell (def)
// every column has unless it is an exception, and the exceptions (exc, by
// column index): the columns whose classes the row's cells list, that changed,
// or that miss a side. A lookup is one Map get; the model grows with the cells
// of the JSON, never with rows times columns.
function rowClass(rc, x) {
  var first = rc.first;
  var nr = x.newIdx.row(first.newCls), or = x.oldIdx.row(first.oldCls);
  var chs = x.changes.get(first.id);
  rc.def = x.cell(nr.others, x.change ? or.others : undefined, undefined);
  if (!x.change && !x.forced.length) {
    rc.exc = nr.cells;
    return;
  }
  rc.exc = new Map();
  var mark = function (col) {
    if (rc.exc.has(col.index)) { return; }
    rc.exc.set(col.index, x.cell(answerIn(nr, col.newCls), x.change ? answerIn(or, col.oldCls) : undefined,
      chs ? chs.get(col.rep.id) : undefined));
  };
  nr.listed.forEach(function (a, k) { (x.byNew.get(k) || []).forEach(mark); });
  if (x.change) {
    or.listed.forEach(function (a, k) { (x.byOld.get(k) || []).forEach(mark); });
    if (chs) { chs.forEach(function (ch, client) { var col = x.colByClient.get(client); if (col) { mark(col); } }); }
  }
  x.forced.forEach(mark);
}

// tally adds a row class's pairs to the counts: its exceptions column by
// column, its default for the clients of every other column.
function tally(rc, x, counts) {
  var n = rc.rows.length, excMembers = 0, changed = 0;
  var add = function (c, pairs) {
    counts.pairs += pairs;
    counts[c.verdict] += pairs;
    if (c.shadow) { counts.shadow += pairs; }
  };
  rc.exc.forEach(function (c, ci) {
    var col = x.cols[ci], k = col.members.length;
    excMembers += k;
    add(c, k * n);
    if (c.change) {
      changed++;
      col.changed += n;
      counts[c.change.kind] = (counts[c.change.kind] || 0) + k * n;
    }
  });
  add(rc.def, (x.members - excMembers) * n);
  rc.changed = changed;
}

function buildModel(kind, raw) {
  var change = kind === 'change';
  var newMap = change ? raw['new'] : raw;
  var oldMap = change ? raw.old : null;
  var sides = [{ map: newMap, field: 'newCls' }];
  if (change) { sides.push({ map: oldMap, field: 'oldCls' }); }
  var keyOf = function (e) { return change ? e.newCls + '/' + e.oldCls : String(e.newCls); };

  var rows = collect('destinations', sides);
  rows.forEach(function (r, i) {
    r.index = i;
    r.ns = namespaceOf(r.id, r.peer);
    r.key = keyOf(r);
    r.text = (r.id + ' ' + (r.peer.workload || '') + ' ' + (r.peer.name || '')).toLowerCase();
  });
  var cols = columns(collect('clients', sides), keyOf);

  var cell = cellMaker(change), colOf = null;
  if (!change) {
    colOf = [];
    cols.forEach(function (col) { if (col.newCls >= 0) { colOf[col.newCls] = col.index; } });
  }
  var x = {
    change: change, cols: cols, newIdx: cellIndex(newMap, colOf, cell), oldIdx: cellIndex(oldMap), cell: cell,
    byNew: colsByClass(cols, 'newCls'), byOld: colsByClass(cols, 'oldCls'), colByClient: new Map(), changes: new Map(),
    forced: cols.filter(function (col) { return col.newCls < 0 || (change && col.oldCls < 0); }), members: 0
  };
  cols.forEach(function (col) {
    x.members += col.members.length;
    col.members.forEach(function (m) { x.colByClient.set(m.id, col); });
  });
  (change ? raw.changes || [] : []).forEach(function (ch) {
    if (!x.changes.has(ch.destination)) { x.changes.set(ch.destination, new Map()); }
    x.changes.get(ch.destination).set(ch.client, ch);
  });
  var counts = { pairs: 0, ALLOW: 0, DENY: 0, none: 0, shadow: 0, opened: 0, closed: 0, 'rule-changed': 0, 'shadow-changed': 0 };
  var classes = new Map();
  rows.forEach(function (r) {
    var rc = classes.get(r.key);
    if (!rc) {
      rc = { key: r.key, first: r, rows: [] };
      classes.set(r.key, rc);
    }
    rc.rows.push(r);
    r.cls = rc;
  });
  classes.forEach(function (rc) { rowClass(rc, x); tally(rc, x, counts); });
  return {
    kind: kind, change: change, mesh: (newMap && newMap.mesh) || '', rows: rows, cols: cols,
    classes: classes, colByClient: x.colByClient, counts: counts,
    notes: ((newMap && newMap.notes) || []).concat((oldMap && oldMap.notes) || [])
  };
}

// cellAt is the cell of a row (or row class) and a column.
function cellAt(r, col) {
  var rc = r.cls || r;
  var c = rc.exc.get(col.index);
  return c === undefined ? rc.def : c;
}

// groupRows splits the rows into collapsible groups: by namespace, or by class
// (rows with the same answers everywhere).
function groupRows(model, rows, mode) {
  var groups = [], byKey = new Map();
  rows.forEach(function (r) {
    var key = mode === 'class' ? 'class ' + r.key : 'ns ' + r.ns;
    var g = byKey.get(key);
    if (!g) {
      g = { key: key, rows: [] };
      byKey.set(key, g);
      groups.push(g);
    }
    g.rows.push(r);
  });
  groups.forEach(function (g) {
    var first = g.rows[0], n = new Map();
    // The group's row classes and how many rows each has: its header's cells
    // look a cell up once per class, not once per row.
    g.rows.forEach(function (r) { n.set(r.cls, (n.get(r.cls) || 0) + 1); });
    g.classes = [];
    n.forEach(function (k, rc) { g.classes.push({ rc: rc, n: k }); });
    if (mode === 'class') {
      var all = first.cls.rows.length;
      g.label = first.id + (all > 1 ? ' and ' + (all - 1) + ' more alike' : '');
    } else {
      g.label = first.ns || '(no namespace)';
    }
  });
  if (mode !== 'class') {
    groups.sort(function (a, b) { return a.label < b.label ? -1 : a.label > b.label ? 1 : 0; });
  }
  return groups;
}

// peerNamespace is the namespace of a client that is not a workload of the
// input: its own, else the one its Kuma service name spells on Kubernetes
// (name_namespace_svc_port), else none.
function peerNamespace(peer) {
  if (peer.namespace) { return peer.namespace; }
  var svc = (peer.tags && peer.tags['kuma.io/service']) || '';
  var m = /^.+_([a-z0-9]([-a-z0-9]*[a-z0-9])?)_svc_[0-9]+$/.exec(svc);
  return m ? m[1] : '';
}

// groupCols splits the columns the filters leave into groups by kind and, for
// clients with a namespace, namespace: the page draws a closed group as one
// column of aggregates, so a map with thousands of client classes stays a
// table of a few dozen columns.
function groupCols(cols) {
  var groups = [], byKey = new Map();
  cols.forEach(function (col) {
    var ns = col.kind === 'workload' ? namespaceOf(col.rep.id, col.rep.peer) : peerNamespace(col.rep.peer);
    var key = col.kind + ' ' + ns;
    var g = byKey.get(key);
    if (!g) {
      g = { key: key, kind: col.kind, ns: ns, label: (KIND_LABELS[col.kind] || col.kind) + (ns ? ': ' + ns : ''), cols: [] };
      byKey.set(key, g);
      groups.push(g);
    }
    g.cols.push(col);
  });
  groups.forEach(function (g, i) { g.index = i; });
  return groups;
}
