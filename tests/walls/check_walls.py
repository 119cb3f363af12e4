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
header (the second half of one public header) is included only from its own folder, and from its
component's src.hpp (the separately compiled mode's part of the component): the header
self-containment test leaves impl/ out because its public header checks it. A component's detail/
is its own: only core/detail/, the helpers of the vocabulary everything shares, is included from
other components; what two components share is a header outside detail/. And no header reaches
itself: the include graph has no loop, so each header can be read knowing only what it includes
(an impl/ half is included at the end of its public header, and includes nothing of it back).

Including is not the only way through a wall: a header can name what another component's detail
namespace declares, reached through a public header of it. So the names are checked too: a name
declared in a component's detail namespace (its detail/ headers, or a `namespace detail` block of
its public ones) is named as `detail::<name>` only within that component, by every component when
it is core's, and across the seams the "Detail seams" table of docs/HACKING.md lists. The
examples, which users copy, name no detail namespace of the library at all.

Usage: check_walls.py <repository root>      exit 0: the walls hold; 1: a wall is breached
       check_walls.py --self-test            proves every kind of breach is caught
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)
DETAIL_NAMESPACE = re.compile(r'\bnamespace\s+(?:\w+::)*detail\s*\{')
DECLARED = re.compile(r'\b(?:struct|class|concept|enum(?:\s+class)?)\s+(\w+)|\busing\s+(\w+)\s*=|'
                      r'\bauto\s+(\w+)\s*\(|\b(?:inline|constexpr)\s+(?:const\s+)?[\w:<>]+\s+(\w+)\s*[({=]')
NAMED = re.compile(r'\bdetail::(\w+)')
LIBRARY_DETAIL = re.compile(r'\breplicant::(?:\w+::)*detail::')


def table_rows(text, heading):
    """(first cell, the `names` of the second) of each row of the table under @p heading."""
    section = re.search(r'^' + re.escape(heading) + r'\n(.*?)(?=^##|\Z)', text, re.S | re.M)
    if not section:
        sys.exit(f'check_walls: docs/HACKING.md has no "{heading}" section')
    for line in section.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) >= 2 and cells[0].startswith('`'):
            yield cells[0].strip('`'), set(re.findall(r'`([^`]+)`', cells[1]))


def read_rules(hacking):
    """The Walls table of @p hacking (docs/HACKING.md's text): {component: set of components it may reach}."""
    rules = {c: allowed | {c} for c, allowed in table_rows(hacking, '## Walls')}
    if not rules:
        sys.exit('check_walls: the Walls table of docs/HACKING.md has no rows')
    return rules


def read_seams(hacking):
    """The Detail seams table of @p hacking: {(component, component whose detail names it may name)}."""
    return {(c.rstrip('/'), o.rstrip('/')) for c, others in table_rows(hacking, '### Detail seams') for o in others}


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
                # A component's src.hpp gathers every impl/ half of the component, detail/ ones too.
                gathered = header == impl_owner.split('/')[0] + '/src.hpp'
                if not gathered and impl_owner not in (header.split('/impl/')[0], header.rsplit('/', 1)[0]):
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


def code_of(text):
    """@p text without its comments and string literals."""
    return COMMENT_OR_STRING.sub(' ', text)


def detail_blocks(code):
    """The bodies of the detail namespaces in @p code."""
    for m in DETAIL_NAMESPACE.finditer(code):
        depth, at = 1, m.end()
        while depth and at < len(code):
            depth += {'{': 1, '}': -1}.get(code[at], 0)
            at += 1
        yield code[m.end():at]


def component(path):
    """The component of a header relative to include/replicant/: its folder, or the header itself."""
    return path.split('/')[0].removesuffix('.hpp')


def detail_owners(sources):
    """{name declared in a detail namespace: the components that declare it}."""
    owners = {}
    for header, code in sources.items():
        for block in detail_blocks(code):
            for m in DECLARED.finditer(block):
                owners.setdefault(next(g for g in m.groups() if g), set()).add(component(header))
    return owners


def detail_breaches(sources, seams):
    """Every `detail::<name>` a header names of another component's detail namespace."""
    owners = detail_owners(sources)
    out = []
    for header in sorted(sources):
        mine = component(header)
        for name in sorted(set(NAMED.findall(sources[header]))):
            theirs = owners.get(name, set())
            if not theirs or mine in theirs or 'core' in theirs or any((mine, o) in seams for o in theirs):
                continue
            out.append(f'{header} ({mine}/) names detail::{name}, of {", ".join(sorted(t + "/" for t in theirs))}')
    return out


def scan_code(root, folder, suffixes):
    """{path relative to @p folder: its code without comments and strings}, for files ending in @p suffixes."""
    out = {}
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in files:
            if name.endswith(suffixes):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, os.path.join(root, folder)).replace(os.sep, '/')
                out[rel] = code_of(open(path, encoding='utf-8').read())
    return out


def example_breaches(examples):
    """Every example file that names a detail namespace of the library."""
    return [f'examples/{path}: names the library\'s detail namespace ({m.group(0)})'
            for path, code in sorted(examples.items()) for m in [LIBRARY_DETAIL.search(code)] if m]


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
        'an impl/ header of another component from a src.hpp':
            {'model/src.hpp': ['replicant/core/impl/b.hpp'], 'core/impl/b.hpp': []},
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
                 'core/src.hpp': ['replicant/core/impl/b.hpp', 'replicant/core/detail/impl/f.hpp'],
                 'core/detail/impl/f.hpp': [],
                 'core/impl/c.hpp': ['replicant/core/impl/b.hpp'], 'core/detail/e.hpp': [],
                 'model/detail/d.hpp': ['replicant/core/detail/e.hpp']}, rules):
        print('check_walls self-test: a graph within its walls was reported')
        failed = True
    failed |= self_test_names()
    return 1 if failed else 0


def self_test_names():
    """The name checks: each kind of breach caught, and what is allowed not reported."""
    sources = {
        'model/detail/arena.hpp': code_of('namespace replicant::detail {\nclass frame_arena {};\n'
                                          'inline auto grow(int n) -> int { return n; }\n}'),
        'core/detail/bytes.hpp': code_of('namespace replicant::detail { struct byte_reader {}; }'),
        'decoder/reader.hpp': code_of('namespace replicant { namespace detail { using shape = int; } }'),
        'model/transaction.hpp': code_of('detail::frame_arena a; detail::byte_reader r;'),
        'decoder/impl/reader.hpp': code_of('detail::shape s; detail::byte_reader r; // detail::frame_arena\n'),
        'assembler/assembler.hpp': code_of('auto n = detail::grow(1); detail::shape s;'),
    }
    failed = False
    found = detail_breaches(sources, set())
    expected = ['assembler/assembler.hpp (assembler/) names detail::grow, of model/',
                'assembler/assembler.hpp (assembler/) names detail::shape, of decoder/']
    if found != expected:
        print(f'check_walls self-test: the name check found {found}, not {expected}')
        failed = True
    if detail_breaches(sources, {('assembler', 'model'), ('assembler', 'decoder')}):
        print('check_walls self-test: a name across a listed seam was reported')
        failed = True
    examples = {'tail/a.hpp': code_of('auto b = replicant::detail::is_sqlstate(s);'),
                'tail/b.hpp': code_of('using replicant::model::detail::x;'),
                'tail/c.hpp': code_of('namespace detail { int y; }\nauto z = detail::y; // replicant::detail::q\n')}
    if [e.split(':')[0] for e in example_breaches(examples)] != ['examples/tail/a.hpp', 'examples/tail/b.hpp']:
        print(f'check_walls self-test: the examples check found {example_breaches(examples)}')
        failed = True
    return failed


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        sys.exit(__doc__)
    root = argv[1]
    hacking = open(os.path.join(root, 'docs', 'HACKING.md'), encoding='utf-8').read()
    rules = read_rules(hacking)
    graph = scan(os.path.join(root, 'include'))
    found = breaches(graph, rules)
    found += detail_breaches(scan_code(root, 'include/replicant', ('.hpp',)),
                             read_seams(hacking))
    found += example_breaches(scan_code(root, 'examples', ('.hpp', '.cpp')))
    for line in found:
        print(line)
    print(f'check_walls: {len(graph)} headers, {len(rules)} rules, {len(found)} breaches')
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
