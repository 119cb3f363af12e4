#!/usr/bin/env python3
# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
"""Every diagnostic a user can meet has a compile-fail case, and the docs quote it as it is.

A diagnostic is the message of a `static_assert` in a header of include/ or examples/. Each must be
matched whole (not a prefix that two sentences share) by the `// expect:` regex of some case in
tests/compile_fail/, except the internal self-checks listed in INTERNAL below, which no user code
can reach. Each diagnostic the docs quote (a code span or a line of a code block in docs/ starting
`replicant: `) must begin one of the library's sentences, so that a reworded message cannot leave
the docs behind.

Usage: coverage.py <repository root>          exit 0: all covered; 1: what is missing is printed
       coverage.py <repository root> --list   also prints each sentence with the cases covering it
"""
import pathlib
import re
import sys

# Messages of static_asserts no user code can trigger, with why.
INTERNAL = {
    'replicant: halt_reasons must list every halt_reason in order':
        'a namespace-scope check of the library\'s own table',
    'a run of bytes or characters':
        'detail::borrowed_or_owned is instantiated by the library only',
    'the signal handler loads the pointer': 'a platform check of the examples',
    'the signal handler loads the hook': 'a platform check of the examples',
    'every value alternative is rendered': 'the tail example visits the closed variant of value',
    'replicant: a Decoder that rechecks the catalog while it streams needs a probe that runs its queries '
    '(a model of catalog_probe)':
        'the probe is the library\'s own (libpq) or the simulator\'s; a user never supplies one',
}

# Messages whose case is still to come, with why. An entry that stops matching a header's message
# fails the check, so the sentence that replaces it needs its case.
AWAITING: dict[str, str] = {}

STATIC_ASSERT = re.compile(r'\bstatic_assert\s*\(')
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
EXPECT = re.compile(r'^// expect(?: ([A-Za-z0-9_]+))?: (.*)$', re.M)
CODE_SPAN = re.compile(r'(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)')


def sentences(root):
    """{message: [file:line, ...]} of every static_assert with a message under include/ and examples/."""
    found = {}
    for top in ('include', 'examples'):
        for path in sorted((root / top).rglob('*.hpp')):
            text = path.read_text(encoding='utf-8')
            for m in STATIC_ASSERT.finditer(text):
                line_start = text.rfind('\n', 0, m.start()) + 1
                if text[line_start:m.start()].lstrip().startswith(('*', '//')):
                    continue  # an example in a comment
                depth, i, in_string = 1, m.end(), False
                while depth:
                    c = text[i]
                    if in_string:
                        if c == '\\':
                            i += 1
                        elif c == '"':
                            in_string = False
                    elif c == '"':
                        in_string = True
                    elif c in '()':
                        depth += 1 if c == '(' else -1
                    i += 1
                literals = STRING.findall(text[m.end():i - 1])
                if literals:
                    message = ''.join(bytes(s, 'utf-8').decode('unicode_escape') for s in literals)
                    where = f'{path.relative_to(root)}:{text.count(chr(10), 0, m.start()) + 1}'
                    found.setdefault(message, []).append(where)
    return found


def expects(root):
    """[(case, regex)] of every compile-fail case; case is file.cpp or file.cpp:name."""
    out = []
    for path in sorted((root / 'tests' / 'compile_fail').glob('*.cpp')):
        for m in EXPECT.finditer(path.read_text(encoding='utf-8')):
            out.append((path.name + (f':{m.group(1)}' if m.group(1) else ''), m.group(2)))
    return out


def doc_quotes(root):
    """[(file:line, quote)] of every diagnostic of the library the docs quote."""
    out = []
    for path in sorted((root / 'docs').rglob('*.md')):
        in_block = False
        for n, line in enumerate(path.read_text(encoding='utf-8').splitlines(), 1):
            if line.lstrip().startswith('```'):
                in_block = not in_block
                continue
            quotes = [line.strip()] if in_block else [m.group(2).strip() for m in CODE_SPAN.finditer(line)]
            out += [(f'{path.relative_to(root)}:{n}', q) for q in quotes if q.startswith('replicant: ')]
    return out


def main(argv):
    root = pathlib.Path(argv[1])
    library = sentences(root)
    cases = expects(root)
    problems = []
    for message, where in library.items():
        if message in INTERNAL or message in AWAITING:
            continue
        covering = [case for case, regex in cases if re.fullmatch(regex, message)]
        if not covering:
            problems.append(f'no compile-fail case expects the whole sentence of {", ".join(where)}:\n  {message}')
        elif '--list' in argv:
            print(f'{message}\n  {", ".join(where)}\n  covered by {", ".join(covering)}')
    for name, exempt in (('INTERNAL', INTERNAL), ('AWAITING', AWAITING)):
        for message in exempt:
            if message not in library:
                problems.append(f'{name} names a message no header has any more:\n  {message}')
    for where, quote in doc_quotes(root):
        if not any(message.startswith(quote) for message in library):
            problems.append(f'{where} quotes a diagnostic the library does not print:\n  {quote}')
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
