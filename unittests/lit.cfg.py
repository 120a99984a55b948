# -*- Python -*-
# Runs the GoogleTest binaries of unittests/ as lit tests.
import os

import lit.formats

config.name = "MEMPLAN-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.memplan_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
