#!/usr/bin/env python3
"""Prints command table entries for src/commands.c (and their doc arrays for
src/commands_doc.h) from a running redis-server 7.0's COMMAND INFO and
COMMAND DOCS, to paste when adding commands Redis has. The C table stays the
source: this only saves typing what Redis already declares. Handlers are
named cmd_<name>; subcommands get their container's handler; CMD_PROTECTED
and getkeys functions are added by hand where needed.

    redis-server --port 7391 --save '' &
    scripts/cmdtable_from_redis.py 7391 hset hget lpush
"""
import re
import socket
import sys
class R:
    def __init__(s, port):
        s.s = socket.create_connection(("127.0.0.1", port)); s.f = s.s.makefile("rb")
    def cmd(s, *a):
        out = b"*%d\r\n" % len(a)
        for x in a:
            x = x.encode() if isinstance(x, str) else x
            out += b"$%d\r\n%s\r\n" % (len(x), x)
        s.s.sendall(out); return s.read()
    def read(s):
        l = s.f.readline()[:-2]; t = l[:1]; r = l[1:]
        if t == b"+": return r.decode()
        if t == b"-": return Exception(r.decode())
        if t == b":": return int(r)
        if t == b"$":
            n = int(r)
            if n < 0: return None
            d = s.f.read(n + 2)[:-2]; return d.decode()
        if t == b"*":
            n = int(r)
            if n < 0: return None
            return [s.read() for _ in range(n)]
        raise ValueError(l)

if len(sys.argv) < 3:
    sys.exit(__doc__)
r = R(int(sys.argv[1]))
names = sys.argv[2:]
subs = {}  # container -> subcommand names to emit (default: all Redis has)
getkeys = {"sort": "sort_getkeys", "sort_ro": "sort_getkeys", "set": "set_getkeys"}
FLAGS = {"write":"CMD_WRITE","readonly":"CMD_READONLY","denyoom":"CMD_DENYOOM","admin":"CMD_ADMIN",
 "pubsub":"CMD_PUBSUB","noscript":"CMD_NOSCRIPT","blocking":"CMD_BLOCKING","loading":"CMD_LOADING",
 "stale":"CMD_STALE","skip_monitor":"CMD_SKIP_MONITOR","skip_slowlog":"CMD_SKIP_SLOWLOG",
 "asking":"CMD_ASKING","fast":"CMD_FAST","no_auth":"CMD_NOAUTH","no_mandatory_keys":"CMD_NO_MANDATORY_KEYS",
 "no_async_loading":"CMD_NO_ASYNC_LOADING","no_multi":"CMD_NO_MULTI","allow_busy":"CMD_ALLOW_BUSY"}
KSF = {"RO":"KS_RO","RW":"KS_RW","OW":"KS_OW","RM":"KS_RM","access":"KS_ACCESS","update":"KS_UPDATE",
 "insert":"KS_INSERT","delete":"KS_DELETE","not_key":"KS_NOT_KEY","incomplete":"KS_INCOMPLETE",
 "variable_flags":"KS_VARIABLE_FLAGS"}
ARGT = {"string":"ARG_STRING","integer":"ARG_INTEGER","double":"ARG_DOUBLE","key":"ARG_KEY",
 "pattern":"ARG_PATTERN","unix-time":"ARG_UNIX_TIME","pure-token":"ARG_PURE_TOKEN","oneof":"ARG_ONEOF","block":"ARG_BLOCK"}
ARGF = {"optional":"ARGF_OPTIONAL","multiple":"ARGF_MULTIPLE","multiple_token":"ARGF_MULTIPLE_TOKEN"}
def m(l): return dict(zip(l[::2], l[1::2]))
def q(s): return '"' + s.replace('\\','\\\\').replace('"','\\"') + '"'
def ident(full): return re.sub(r'[^a-z0-9]', '_', full)
pre = []  # doc arrays
kspre = []
def keyspecs(full, specs):
    if not specs: return None
    lines = []
    for s in specs:
        s = m(s); parts = []
        if 'notes' in s: parts.append(".notes = " + q(s['notes']))
        parts.append(".flags = " + (" | ".join(KSF[f] for f in s['flags']) or "0"))
        bs = m(s['begin_search']); bsp = m(bs['spec'])
        if bs['type'] == 'index': parts.append("BS_INDEX(%d)" % bsp['index'])
        elif bs['type'] == 'keyword': parts.append("BS_KEYWORD(%s, %d)" % (q(bsp['keyword']), bsp['startfrom']))
        else: parts.append("BS_UNKNOWN")
        fk = m(s['find_keys']); fkp = m(fk['spec'])
        if fk['type'] == 'range': parts.append("FK_RANGE(%d, %d, %d)" % (fkp['lastkey'], fkp['keystep'], fkp['limit']))
        elif fk['type'] == 'keynum': parts.append("FK_KEYNUM(%d, %d, %d)" % (fkp['keynumidx'], fkp['firstkey'], fkp['keystep']))
        else: parts.append("FK_UNKNOWN")
        lines.append("    {" + ", ".join(parts) + "},")
    name = ident(full) + "_keys"
    kspre.append("static const cmd_key_spec %s[] = {\n%s\n};" % (name, "\n".join(lines)))
    return name
def args(prefix, al):
    lines = []
    for a in al:
        a = m(a); parts = [q(a['name']), ARGT[a['type']]]
        extra = []
        if 'key_spec_index' in a: extra.append(".key_spec_index = %d" % a['key_spec_index'])
        else: extra.append(".key_spec_index = -1")
        if 'token' in a: extra.append(".token = " + q(a['token']))
        if 'since' in a: extra.append(".since = " + q(a['since']))
        if 'flags' in a: extra.append(".flags = " + " | ".join(ARGF[f] for f in a['flags']))
        if 'deprecated_since' in a: extra.append(".deprecated_since = " + q(a['deprecated_since']))
        if 'arguments' in a:
            extra.append(".subargs = " + args(prefix + "_" + ident(a['name']), a['arguments']))
        lines.append("    {" + ", ".join([".name = " + parts[0], ".type = " + parts[1]] + extra) + "},")
    name = prefix + "_args"
    pre.append("static const cmd_arg %s[] = {\n%s\n    {0}};" % (name, "\n".join(lines)))
    return name
def strlist(name, l):
    pre.append("static const char *const %s[] = {%s, NULL};" % (name, ", ".join(q(x) for x in l)))
    return name
CATS = "keyspace read write set sortedset list hash string bitmap hyperloglog geo stream pubsub admin fast slow blocking dangerous connection transaction scripting".split()
def entry(full, declared, proc, info, doc, indent="    ", sub_array=None):
    name, arity, flags, first, last, step, cats, tips, specs, subinfo = info
    fl = [FLAGS[f] for f in flags if f in FLAGS]
    if full in ("debug",): fl.append("CMD_PROTECTED")
    e = ['.name = %s' % q(declared), '.proc = %s' % proc, '.arity = %d' % arity,
         '.flags = %s' % (" | ".join(fl) or "0"),
         '.acl = %s' % (" | ".join("CAT_" + c[1:].upper() for c in cats) or "0")]
    ks = keyspecs(full, specs)
    if ks: e.append("KEY_SPECS(%s)" % ks)
    if full in getkeys: e.append(".getkeys = " + getkeys[full])
    if tips: e.append(".tips = " + strlist(ident(full) + "_tips", tips))
    e.append('.group = %s' % q(doc['group']))
    e.append('.since = %s' % q(doc['since']))
    e.append('.summary = %s' % q(doc['summary']))
    if 'complexity' in doc: e.append('.complexity = %s' % q(doc['complexity']))
    if 'doc_flags' in doc: e.append('.doc_flags = %s' % " | ".join("DOC_" + f.upper() for f in doc['doc_flags']))
    if 'deprecated_since' in doc: e.append('.deprecated_since = %s' % q(doc['deprecated_since']))
    if 'replaced_by' in doc: e.append('.replaced_by = %s' % q(doc['replaced_by']))
    if 'history' in doc:
        e.append('.history = ' + strlist(ident(full) + "_history", [x for p in doc['history'] for x in p]))
    if 'arguments' in doc: e.append('.args = ' + args(ident(full), doc['arguments']))
    if sub_array: e.append('.subcmds = ' + sub_array)
    head = ", ".join(e[:5] + [x for x in e[5:] if x.startswith("KEY_SPECS") or x.startswith(".getkeys")])
    rest = [x for x in e[5:] if not (x.startswith("KEY_SPECS") or x.startswith(".getkeys"))]
    lines = [head]; cur = ""
    for x in rest:
        if cur and len(cur) + len(x) > 88: lines.append(cur); cur = ""
        cur = (cur + ", " + x) if cur else x
    if cur: lines.append(cur)
    return indent + "{" + (",\n" + indent + " ").join(lines) + "},"
out = []
for n in names:
    info = r.cmd("command", "info", n)[0]
    if info is None:
        sys.exit("redis-server does not know %s" % n)
    doc = m(r.cmd("command", "docs", n)[1])
    sub_array = None
    if info[9]:
        sl = []
        for si in info[9]:
            full = si[0]
            sd = m(r.cmd("command", "docs", full)[1])
            sl.append(entry(full, full.split("|")[1], "cmd_" + n, si, sd))
        sub_array = ident(n) + "_subcmds"
        kspre.append("static cmd_def %s[] = {\n%s\n    {0}};" % (sub_array, "\n".join(sl)))
    out.append(entry(n, n, "cmd_" + n, info, doc, sub_array=sub_array))
print("/* ---- commands_doc.h ---- */")
print("\n".join(pre))
print("\n/* ---- commands.c: key specs (and subcommands) ---- */")
print("\n".join(kspre))
print("\n/* ---- commands.c: entries for `table` ---- */")
print("\n".join(out))
