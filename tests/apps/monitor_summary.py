"""monitor_summary.py < MONITOR-LOG: the commands an application sent, as
tests/apps/COMMANDS.md lists them. Reads the output of `redis-cli monitor`
and prints each distinct command name with where it came from (client or
lua, i.e. inside EVALSHA) and how often; for the stream commands (X*) also
each distinct shape of arguments, keys as KEY, numbers as N, entry ids as
ID, fields and values as F V..., options as they were sent."""
import collections
import re
import shlex
import sys

LINE = re.compile(r'^\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$')
WORDS = {'MAXLEN', 'MINID', 'NOMKSTREAM', 'LIMIT', 'COUNT', 'BLOCK', 'STREAMS', 'GROUP', 'NOACK',
         'MKSTREAM', 'ENTRIESREAD', 'IDLE', 'TIME', 'RETRYCOUNT', 'FORCE', 'JUSTID', 'START', 'END',
         'FULL', 'CREATE', 'SETID', 'DESTROY', 'CREATECONSUMER', 'DELCONSUMER', 'CONSUMERS',
         'GROUPS', 'STREAM', 'HELP', '~', '=', '*', '$', '-', '+', '>'}


def token(a):
    if a.upper() in WORDS:
        return a.upper()
    if re.fullmatch(r'\d+', a):
        return 'N'
    if re.fullmatch(r'\d+-\d+|\d+-\*', a):
        return 'ID'
    return None


def xshape(name, args):
    """The shape of one stream command's arguments."""
    out = [name]
    if name in ('XREAD', 'XREADGROUP'):
        i = 0
        while i < len(args):
            t = token(args[i]) or 'ARG'
            out.append(t)
            if t == 'GROUP':
                out += ['G', 'C']
                i += 2
            if t == 'STREAMS':
                n = (len(args) - i - 1) // 2
                out += ['KEY'] * n + [token(x) or 'ID?' for x in args[i + 1 + n:]]
                break
            i += 1
        return ' '.join(out)
    if not args:
        return name
    out.append('KEY')
    rest = args[1:]
    if name == 'XADD':
        i = 0
        while i < len(rest) and rest[i].upper() in ('NOMKSTREAM', 'MAXLEN', 'MINID', 'LIMIT', '~', '='):
            out.append(rest[i].upper())
            if rest[i].upper() in ('MAXLEN', 'MINID', 'LIMIT'):
                if rest[i + 1] in ('~', '='):
                    out.append(rest[i + 1])
                    i += 1
                out.append('N')
                i += 1
            i += 1
        out.append(token(rest[i]) or 'ID?')
        out.append('F V x%d' % ((len(rest) - i - 1) // 2))
        return ' '.join(out)
    for a in rest:
        out.append(token(a) or 'ARG')
    return ' '.join(out)


def main():
    names = collections.Counter()
    shapes = collections.Counter()
    for line in sys.stdin:
        m = LINE.match(line.strip())
        if not m:
            continue
        src = 'lua' if m.group(1) == 'lua' else 'client'
        try:
            argv = shlex.split(m.group(2))
        except ValueError:
            continue
        if not argv:
            continue
        name = argv[0].upper()
        names[(name, src)] += 1
        if name.startswith('X'):
            shapes[(xshape(name, argv[1:]), src)] += 1
    print('commands (name, from, count):')
    for (name, src), n in sorted(names.items()):
        print('  %-16s %-6s %d' % (name, src, n))
    print('stream commands by shape (from, count):')
    for (shape, src), n in sorted(shapes.items()):
        print('  %-60s %-6s %d' % (shape, src, n))


if __name__ == '__main__':
    main()
