#!/usr/bin/env python3
"""Fills the expected replies of tests/integration/resp3_corpus.h from
redis-server's own, so that they are Redis's and not verso's.

To add a command to the corpus, add an entry to resp3_corpus.h with NULL
for both replies (and its flags), then from the build directory:

  RESP3_DUMP=1 VERSO_SERVER=/usr/bin/redis-server \\
      ./tests/integration/test_resp3 > /tmp/resp3.dump
  ../tests/integration/gen_resp3_corpus.py /tmp/resp3.dump

The dump mode prints each corpus reply as '<proto> "<command>" "<reply>"'
(C literals); this script puts them back in the table in place, entry by
entry (a command that appears twice takes the dumped replies in order).
Entries flagged F_HEAD keep their hand-trimmed replies (a prefix)."""
import ast
import os
import re
import sys

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "resp3_corpus.h")
LIT = r'(NULL|"(?:[^"\\]|\\.)*")'
ENTRY = re.compile(r'    \{("(?:[^"\\]|\\.)*"),\n     ' + LIT + r',\n     ' + LIT +
                   r', ([A-Z_| 0-9]+)\},')


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    dumped = {}
    for line in open(sys.argv[1], encoding="latin-1"):
        m = re.match(r'^([23]) ("(?:[^"\\]|\\.)*") (".*")$', line.rstrip("\n"))
        if m:
            dumped.setdefault((m.group(1), m.group(2)), []).append(m.group(3))
    text = open(HEADER, encoding="latin-1").read()
    seen = {}

    def fill(m):
        cmd, w3, w2, flags = m.groups()
        k = seen.get(cmd, 0)
        seen[cmd] = k + 1
        if "F_HEAD" not in flags:
            l3, l2 = dumped.get(("3", cmd), []), dumped.get(("2", cmd), [])
            if k >= len(l3) or k >= len(l2):
                sys.exit("no dumped reply for %s (occurrence %d)" % (cmd, k + 1))
            w3, w2 = l3[k], l2[k]
        return '    {%s,\n     %s,\n     %s, %s},' % (cmd, w3, w2, flags)

    out = ENTRY.sub(fill, text)
    if sum(seen.values()) != len(re.findall(r'^    \{"', text, re.M)):
        sys.exit("an entry of %s is not in the expected layout" % HEADER)
    for lit in re.findall(LIT, out):
        if lit != "NULL":
            ast.literal_eval(lit)  # a C literal the dump wrote: also valid Python
    open(HEADER, "w", encoding="latin-1").write(out)


if __name__ == "__main__":
    main()
