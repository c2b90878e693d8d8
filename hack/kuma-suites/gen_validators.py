# Derives Kuma v2.13.10's policy validator suite from the v2.14.3 one: every table
# entry at v2.13.10 (found as the 2.14 extraction found them), matched to the 2.14
# entry of the same test file and description (k-th occurrence to k-th); its manifest
# and expectations are reused only when checked against the 2.13 entry's text.
import json, os, re, sys, shutil
sys.path.insert(0, '.')
from entries import entries
SRC = '../../validate/testdata/conformance/kuma-validators-2.14'
DST = '../../validate/testdata/conformance/kuma-validators-2.13'
d = json.load(open(SRC + '/cases.json'))
files = []
for c in d['cases']:
    f = c['source'].rsplit(':', 1)[0]
    if f not in files: files.append(f)
MSG = {'must be a valid Spiffe ID: scheme is missing or invalid': 'must be a valid Spiffe ID',
       'must be set when kind is MeshServiceSubset': 'must be set with kind MeshServiceSubset'}
def norm(s): return [l.strip() for l in s.split('\n') if l.strip()]
out = []; problems = []; added = []; dropped = []
os.makedirs(DST, exist_ok=True)
for f in files:
    cases14 = [c for c in d['cases'] if c['source'].startswith(f + ':')]
    used = set(); n = {}
    for e in entries('v2.13.10', f):
        k = n.get(e['desc'], 0); n[e['desc']] = k + 1
        same = [c for c in cases14 if c['description'] == e['desc']]
        if k >= len(same):
            added.append((f, e)); out.append(('NEW', f, e)); continue
        c = dict(same[k]); used.add(c['file'])
        block = e['block']; bl = set(norm(block))
        text = open(SRC + '/' + c['file']).read()
        head, body = text.split('\n', 1)
        spec = body.split('\nspec:\n', 1)[1] if '\nspec:\n' in body else ''
        if not c.get('data'):
            for l in norm(spec):
                if l not in bl and l.replace("'", '"') not in bl and not any(x.strip().startswith(l) or l in x for x in bl):
                    problems.append((c['file'], 'yaml line not in 2.13 entry', l)); break
        for fld in c['fields']:
            if fld not in block and not c.get('data'):
                problems.append((c['file'], 'field not in 2.13 entry', fld))
        msgs = []
        for m in c['messages']:
            if c.get('data') or m in block or json.dumps(m)[1:-1] in block or m.replace('"', '\\"') in block:
                msgs.append(m)
            elif MSG.get(m) and MSG[m] in block:
                msgs.append(MSG[m])
            else:
                problems.append((c['file'], 'message not in 2.13 entry', m)); msgs.append(m)
        c['messages'] = msgs
        c['source'] = f + ':' + str(e['line'])
        head = re.sub(r'^# Kuma v2\.14\.3 (\S+?):\d+', lambda m: '# Kuma v2.13.10 ' + f + ':' + str(e['line']), head)
        out.append((c, head + '\n' + body))
    for c in cases14:
        if c['file'] not in used: dropped.append((c['file'], c['description']))
json.dump({'problems': problems, 'dropped': dropped, 'added': [(f, e['line'], e['desc']) for f, e in added]}, sys.stdout, indent=1)
import pickle; pickle.dump(out, open('out.pkl', 'wb'))
