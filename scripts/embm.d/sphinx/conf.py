# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration for checking embm's rst files alone (scripts/embm
# test, t_docs_rst): the kernel's own Sphinx extensions, loaded from the
# kernel tree named by EMBM_KSRC, and the settings of its
# Documentation/conf.py that change how a page is read.  Everything about
# output (themes, LaTeX, man pages) is left out: the check uses the dummy
# builder, which reads, parses and resolves every page and writes nothing.

import os
import sys

import sphinx

ksrc = os.environ['EMBM_KSRC']
sys.path.insert(0, os.path.join(ksrc, 'Documentation', 'sphinx'))

project = 'embm'
master_doc = 'index'
root_doc = 'index'
exclude_patterns = []

# Documentation/conf.py's list but kfigure, which renders figures (the
# kernel-figure, kernel-image and kernel-render directives, none used by
# embm) and warns at start-up when graphviz's dot(1) is missing: a warning
# that says nothing about embm's pages would fail the check.  kerneldoc,
# kernel_abi, kernel_feat and maintainers_include act only on their own
# directives, which embm's pages do not use either; they are loaded so that
# a page that starts to use one is read as in the kernel's build.
extensions = ['kerneldoc', 'rstFlatTable', 'kernel_include',
              'sphinx.ext.ifconfig', 'automarkup',
              'maintainers_include', 'sphinx.ext.autosectionlabel',
              'kernel_abi', 'kernel_feat', 'translations']
if sphinx.version_info[0] < 3:
    extensions.append('cdomain')

kerneldoc_bin = os.path.join(ksrc, 'scripts', 'kernel-doc')
kerneldoc_srctree = ksrc

autosectionlabel_prefix_document = True
autosectionlabel_maxdepth = 2
primary_domain = 'c'
highlight_language = 'none'
