# SPDX-License-Identifier: GPL-2.0-only
#
# Sphinx configuration for rdma-mrcore's documentation.  Built by
# scripts/docs.sh (make docs), which points MRCORE_KERNEL_TOOLS at a
# directory holding the kernel's scripts/kernel-doc and
# Documentation/sphinx/kerneldoc.py (Debian's linux-source-6.12).

import os
import sys

tools = os.environ.get('MRCORE_KERNEL_TOOLS')
if not tools:
    sys.exit('conf.py: MRCORE_KERNEL_TOOLS is not set; build with scripts/docs.sh')
sys.path.insert(0, os.path.join(tools, 'Documentation', 'sphinx'))

project = 'rdma-mrcore'
copyright = 'rdma-mrcore authors; GPL-2.0-only'
with open(os.path.join(os.path.dirname(__file__), '..', 'VERSION')) as f:
    version = release = f.read().strip()

extensions = ['kerneldoc']
kerneldoc_bin = os.path.join(tools, 'scripts', 'kernel-doc')
kerneldoc_srctree = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
kerneldoc_verbosity = 1

master_doc = 'index'
exclude_patterns = []
primary_domain = 'c'
highlight_language = 'none'
# Kernel attributes that appear in prototypes, as in the kernel's conf.py.
c_id_attributes = ['__init', '__exit', '__must_check', '__always_inline',
                   '__printf', '__rcu', '__iomem', '__user']

html_theme = 'alabaster'
html_theme_options = {'nosidebar': False}
html_static_path = []
html_show_sourcelink = False
