#!/usr/bin/env python3
# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
"""The walls between replicant's components, checked on the include graph.

The rules are not written here: they are the "Walls" table of docs/HACKING.md, so the page a
contributor reads and the check CI runs cannot drift apart. Each row names a component (a folder
of include/replicant/, or one header) and the components it may reach, directly or through any
chain of includes. This script reads every header under include/replicant/, follows each
`#include <replicant/...>` transitively, and prints every header that reaches what its component
may not, with the chain of includes that gets there. Two more walls are not components:
only pq/ includes <libpq-fe.h>, and nothing in include/ includes a file of tests/. And an impl/
header (the second half of one public header) is included only from its own folder: the header
self-containment test leaves impl/ out because its public header checks it. A component's detail/
is its own: only core/detail/, the helpers of the vocabulary everything shares, is included from
other components; what two components share is a header outside detail/. And no header reaches
itself: the include graph has no loop, so each header can be read knowing only what it includes
(an impl/ half is included at the end of its public header, and includes nothing of it back).

Usage: check_walls.py <repository root>      exit 0: the walls hold; 1: a wall is breached
       check_walls.py --self-test            proves every kind of breach is caught
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def read_rules(hacking_md):
    """The Walls table: {component: set of components it may reach}, plus the libpq rule's owner."""
    text = open(hacking_md, encoding='utf-8').read()
    section = re.search(r'^## Walls\n(.*?)(?=^## |\Z)', text, re.S | re.M)
    if not section:
        sys.exit('check_walls: docs/HACKING.md has no "## Walls" section')
    rules = {}
    for line in section.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 2 or not cells[0].startswith('`'):
            continue
        component = cells[0].strip('`')
        allowed = set(re.findall(r'`([^`]+)`', cells[1]))
        rules[component] = allowed | {component}
    if not rules:
        sys.exit('check_walls: the Walls table of docs/HACKING.md has no rows')
    return rules


def component_of(header, rules):
    """The most specific rule naming the header: a header row beats its folder's row."""
    if header in rules:
        return header
    folder = header.split('/')[0] + '/' if '/' in header else None
    if folder in rules:
        return folder
    return None


def allowed(mine, theirs, rules):
    """A header with a row of its own may still be reached by whoever may reach its folder."""
    folder = theirs.split('/')[0] + '/' if not theirs.endswith('/') else theirs
    return theirs in rules[mine] or folder in rules[mine]


def scan(include_root):
    """{header relative to include/replicant/: [its includes, as written]}."""
    graph = {}
    base = os.path.join(include_root, 'replicant')
    for dirpath, _, files in os.walk(base):
        for name in files:
            if name.endswith('.hpp'):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, base).replace(os.sep, '/')
                graph[rel] = INCLUDE.findall(open(path, encoding='utf-8').read())
    return graph


def breaches(graph, rules):
    """Every wall the graph breaches, as one line each (header, what it reaches, through what)."""
    out = []
    for header in sorted(graph):
        mine = component_of(header, rules)
        if mine is None:
            out.append(f'{header}: no row of the Walls table covers it')
            continue
        for raw in graph[header]:
            if 'tests/' in raw or raw.startswith('support/') or raw.startswith('unit/'):
                out.append(f'{header}: includes {raw}, a file of tests/')
            if raw == 'libpq-fe.h' and mine != 'pq/':
                out.append(f'{header}: includes <libpq-fe.h>, which only pq/ may')
            if raw.startswith('replicant/') and '/impl/' in raw:
                impl_owner = raw[len('replicant/'):].split('/impl/')[0]
                if impl_owner not in (header.split('/impl/')[0], header.rsplit('/', 1)[0]):
                    out.append(f'{header}: includes {raw}, an impl/ header of another folder')
            if raw.startswith('replicant/') and '/detail/' in raw:
                detail_owner = raw[len('replicant/'):].split('/')[0]
                if detail_owner not in ('core', header.split('/')[0]):
                    out.append(f'{header}: includes {raw}, a detail/ header of another component')
        # Breadth-first over replicant includes, remembering how each header was reached.
        # One line per component breached: the shortest chain that reaches it; and one if the
        # header reaches itself again.
        seen, queue, reported, looped = {header: None}, [header], set(), False
        while queue:
            at = queue.pop(0)
            for raw in graph.get(at, []):
                if not raw.startswith('replicant/'):
                    continue
                target = raw[len('replicant/'):]
                if target == header and not looped:
                    looped = True
                    chain, step = [target], at
                    while step is not None:
                        chain.append(step)
                        step = seen[step]
                    out.append(f'{header} includes itself back: ' + ' -> '.join(reversed(chain)))
                if target in seen:
                    continue
                seen[target] = at
                queue.append(target)
                theirs = component_of(target, rules)
                if theirs is not None and not allowed(mine, theirs, rules) and theirs not in reported:
                    reported.add(theirs)
                    chain, step = [target], at
                    while step is not None:
                        chain.append(step)
                        step = seen[step]
                    out.append(f'{header} ({mine}) reaches {target} ({theirs}): '
                               + ' -> '.join(reversed(chain)))
    return out


def self_test():
    rules = {'core/': {'core/'}, 'model/': {'core/', 'model/'}, 'pq/': {'core/', 'pq/'},
             'sink/': {'core/', 'model/', 'sink/'}}
    cases = {
        'a header of another component, directly':
            {'model/a.hpp': ['replicant/pq/c.hpp'], 'pq/c.hpp': []},
        'a header of another component, through an allowed one':
            {'model/a.hpp': ['replicant/core/b.hpp'], 'core/b.hpp': ['replicant/pq/c.hpp'], 'pq/c.hpp': []},
        'libpq outside pq/': {'core/b.hpp': ['libpq-fe.h']},
        'a file of tests/': {'core/b.hpp': ['support/server/pg_cluster.hpp']},
        'a header no row covers': {'stray.hpp': []},
        'an impl/ header from another folder':
            {'model/a.hpp': ['replicant/core/impl/b.hpp'], 'core/impl/b.hpp': []},
        'a detail/ header of a component it may reach, not core/':
            {'sink/s.hpp': ['replicant/model/detail/d.hpp'], 'model/detail/d.hpp': []},
        'an include loop (an impl/ half that includes its public header back)':
            {'core/a.hpp': ['replicant/core/impl/a.hpp'], 'core/impl/a.hpp': ['replicant/core/a.hpp']},
    }
    failed = False
    for what, graph in cases.items():
        if not breaches(graph, rules):
            print(f'check_walls self-test: not caught: {what}')
            failed = True
    if breaches({'model/a.hpp': ['replicant/core/b.hpp', 'vector', 'replicant/core/detail/e.hpp',
                                 'replicant/model/detail/d.hpp'],
                 'core/b.hpp': ['replicant/core/impl/b.hpp'], 'core/impl/b.hpp': [],
                 'core/impl/c.hpp': ['replicant/core/impl/b.hpp'], 'core/detail/e.hpp': [],
                 'model/detail/d.hpp': ['replicant/core/detail/e.hpp']}, rules):
        print('check_walls self-test: a graph within its walls was reported')
        failed = True
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        sys.exit(__doc__)
    root = argv[1]
    rules = read_rules(os.path.join(root, 'docs', 'HACKING.md'))
    graph = scan(os.path.join(root, 'include'))
    found = breaches(graph, rules)
    for line in found:
        print(line)
    print(f'check_walls: {len(graph)} headers, {len(rules)} rules, {len(found)} breaches')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
