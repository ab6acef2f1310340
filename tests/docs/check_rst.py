#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Parses every Documentation/*.rst with docutils and fails on any
warning or error (a malformed table, a broken block, a dangling target),
so that the documentation stays readable as text and builds with Sphinx.

Sphinx's own :doc: role and toctree directive are accepted as they are,
and :doc: targets must name a page that exists.

Usage: check_rst.py FILE...   (exit status 1 on the first page with a problem)
"""
import io
import os
import sys

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

pages = set()


def doc_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    target = text.split('<')[-1].rstrip('>').strip()
    if target not in pages:
        msg = inliner.reporter.error(f':doc: names no page: {target}', line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [nodes.literal(rawtext, target)], []


class TocTree(Directive):
    has_content = True
    option_spec = {'maxdepth': directives.nonnegative_int}

    def run(self):
        missing = [e.strip() for e in self.content
                   if e.strip() and e.strip() not in pages]
        if missing:
            return [self.state_machine.reporter.error(
                f'toctree names no page: {", ".join(missing)}', line=self.lineno)]
        return []


def main(files):
    for d in {os.path.dirname(f) or '.' for f in files}:
        pages.update(os.path.splitext(n)[0] for n in os.listdir(d)
                     if n.endswith('.rst'))
    roles.register_local_role('doc', doc_role)
    directives.register_directive('toctree', TocTree)
    bad = 0
    for path in files:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        report = io.StringIO()
        publish_doctree(text, source_path=path, settings_overrides={
            'warning_stream': report, 'report_level': 2, 'halt_level': 5})
        if report.getvalue():
            sys.stderr.write(report.getvalue())
            bad += 1
    print(f'check_rst: {len(files)} pages, {bad} with problems')
    return 1 if bad else 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: check_rst.py FILE...')
    sys.exit(main(sys.argv[1:]))
