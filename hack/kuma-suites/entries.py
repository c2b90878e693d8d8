import json, re, subprocess, sys
import os
G=['git','--git-dir='+os.environ.get('KUMA_GIT_DIR','/work/.mirror/kumahq+kuma/repo')]
def show(tag, path):
    r=subprocess.run(G+['show',f'{tag}:{path}'],capture_output=True,text=True)
    return r.stdout if r.returncode==0 else None
CALL=re.compile(r'\b(Entry|ErrorCase|ErrorCases|FEntry|PEntry)\(\s*$|\b(Entry|ErrorCase|ErrorCases)\(\s*"((?:[^"\\]|\\.)*)"')
def entries(tag, path):
    src=show(tag,path)
    if src is None: return []
    lines=src.split('\n')
    out=[]
    for i,l in enumerate(lines):
        m=re.search(r'\b(Entry|ErrorCase|ErrorCases)\(\s*(?:"((?:[^"\\]|\\.)*)")?',l)
        if not m: continue
        if 'DescribeTable' in l: continue
        desc=m.group(2)
        if desc is None:
            # description on a following line
            for j in range(i+1,min(i+3,len(lines))):
                mm=re.match(r'\s*"((?:[^"\\]|\\.)*)"',lines[j])
                if mm: desc=mm.group(1); break
        if desc is None: continue
        out.append([i+1,desc])
    # blocks
    res=[]
    for k,(ln,desc) in enumerate(out):
        end=out[k+1][0]-1 if k+1<len(out) else len(lines)
        res.append({'line':ln,'desc':json.loads('"'+desc+'"'),'block':'\n'.join(lines[ln-1:end])})
    return res
