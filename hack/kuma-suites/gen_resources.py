# Derives Kuma v2.13.10's resource validator suite from the v2.14.3 one, as
# gen_validators.py does for the policies: entries of the same test file matched by
# text (k-th occurrence to k-th), reused only when checked against the 2.13 source;
# golden-file cases reused when their testdata is unchanged between the tags.
import json, os, re, sys, glob, subprocess
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from entries import entries, show
SRC = sys.argv[1]; DST = sys.argv[2]
# The tags compared: FROM the suite's own (v2.14.3), TO the release derived (v2.13.10,
# or a commit for a preview: KUMA_TO=<commit>).
FROM = os.environ.get('KUMA_FROM', 'v2.14.3'); TO = os.environ.get('KUMA_TO', 'v2.13.10'); TOH = TO if TO.startswith('v') else TO[:12]
MSG = {'must be a valid Spiffe ID: scheme is missing or invalid': 'must be a valid Spiffe ID',
       'must be set when kind is MeshServiceSubset': 'must be set with kind MeshServiceSubset'}
# The entries whose v2.13.10 expectations differ, as its source writes them.
HAND = {'dataplane-027-networking-empty.yaml': (['networking', 'networking.address'],
        ['has to contain at least one inbound interface or gateway', "address can't be empty"])}
# The entries only v2.13.10 has: (cases file, test line) -> case and manifest.
NEW = {('cases-dataplane.json', 418): ({'file': 'dataplane-078-networking-not-enough-inbound-interfaces-and-no-gateway.yaml', 'kind': 'Dataplane',
        'description': 'networking: not enough inbound interfaces and no gateway', 'expect': 'invalid',
        'fields': ['networking'], 'messages': ['has to contain at least one inbound interface or gateway']},
        'apiVersion: kuma.io/v1alpha1\nkind: Dataplane\nmesh: default\nmetadata:\n  name: dp-1\n  namespace: kuma-system\nspec:\n'
        '  networking:\n    address: 192.168.0.1\n    outbound:\n      - port: 3333\n        tags:\n          kuma.io/service: redis\n')}
def norm(s): return [l.strip() for l in s.split('\n') if l.strip()]
report = {'problems': [], 'dropped': [], 'added': [], 'kinds': {}}
os.makedirs(DST, exist_ok=True)
for fn in sorted(glob.glob(SRC + '/cases-*.json')):
    d = json.load(open(fn)); base = os.path.basename(fn)
    out = []; n = {}; used = set(); cache = {}
    for c in d['cases']:
        src = c['source']
        m = re.match(r'^(.*\.go):(\d+)$', src)
        if not m:  # a golden-file case: reuse when input and output are unchanged
            paths = [src] + [p for p in c.get('data', []) if p != src]
            if all(show(TO, p) is not None and show(TO, p) == show(FROM, p) for p in paths):
                out.append((dict(c), open(os.path.join(SRC, c['file'])).read().replace('# Kuma %s ' % FROM, '# Kuma %s ' % TOH, 1)))
            else:
                report['dropped'].append((c['file'], 'testdata missing or changed at ' + TOH))
            continue
    files = []
    for c in d['cases']:
        m = re.match(r'^(.*\.go):(\d+)$', c['source'])
        if m and m.group(1) not in files: files.append(m.group(1))
    for f in files:
        cases14 = [c for c in d['cases'] if c['source'].startswith(f + ':')]
        n = {}
        for e in entries(TO, f):
            k = n.get(e['desc'], 0); n[e['desc']] = k + 1
            same = [c for c in cases14 if c['description'] == e['desc']]
            if k >= len(same):
                if (base, e['line']) in NEW and TO == 'v2.13.10':
                    c, man = NEW[(base, e['line'])]; c = dict(c); c['source'] = f + ':' + str(e['line'])
                    out.append((c, '# Kuma %s %s: %s (Kuma: %s)\n' % (TOH, c['source'], json.dumps(e['desc']), c['expect']) + man))
                else:
                    report['added'].append((base, f, e['line'], e['desc']))
                continue
            c = dict(same[k]); used.add(c['file']); block = e['block']; bl = set(norm(block))
            text = open(os.path.join(SRC, c['file'])).read()
            head, body = text.split('\n', 1)
            spec = body.split('\nspec:\n', 1)[1] if '\nspec:\n' in body else ''
            ok = True
            if c.get('data'):
                if any(show(TO, p) != show(FROM, p) for p in c['data']):
                    report['problems'].append((c['file'], 'testdata changed')); ok = False
            else:
                for l in norm(spec):
                    if l not in bl and not any(l in x for x in bl):
                        report['problems'].append((c['file'], 'yaml line not in 2.13 entry', l)); ok = False; break
                for fld in c['fields']:
                    if fld not in block:
                        report['problems'].append((c['file'], 'field not in 2.13 entry', fld)); ok = False
                nf = len(re.findall(r'(?i)\bfield:', block))
                if nf and nf != len(c['fields']):
                    report['problems'].append((c['file'], 'violation count', nf, len(c['fields']))); ok = False
            msgs = []
            for m_ in c['messages']:
                if c.get('data') or m_ in block or m_.replace('"', '\\"') in block or "validators." in block:
                    msgs.append(m_)
                elif MSG.get(m_) and MSG[m_] in block: msgs.append(MSG[m_])
                else:
                    report['problems'].append((c['file'], 'message', m_)); msgs.append(m_)
            c['messages'] = msgs
            c['source'] = f + ':' + str(e['line'])
            head = re.sub(r'^# Kuma ' + re.escape(FROM) + r' \S+?:\d+', '# Kuma ' + TOH + ' ' + f + ':' + str(e['line']), head)
            if c['file'] in HAND and TO == 'v2.13.10':  # differs at v2.13.10 in its expectations only, written from the 2.13 source
                c['fields'], c['messages'] = HAND[c['file']]; ok = True
                report['problems'] = [x for x in report['problems'] if x[0] != c['file']]
            if ok: out.append((c, head + '\n' + body))
            else: report['dropped'].append((c['file'], 'differs at ' + TOH))
        for c in cases14:
            if c['file'] not in used: report['dropped'].append((c['file'], 'not in the ' + TOH + ' tables'))
    report['kinds'][base] = len(out)
    if not out: continue
    cases = []
    for c, text in out:
        cases.append(c); open(os.path.join(DST, c['file']), 'w').write(text)
    res = dict(d); res['cases'] = cases; res['kuma'] = {'repository': 'https://github.com/kumahq/kuma', ('tag' if TO.startswith('v') else 'commit'): TO}
    json.dump(res, open(os.path.join(DST, base), 'w'), indent=1); open(os.path.join(DST, base), 'a').write('\n')
json.dump(report, sys.stdout, indent=1)
