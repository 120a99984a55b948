# -*- Python -*-
import os
import sys
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MEMPLAN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.memplan_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "lib", "Inputs", "Utils"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%memplan_src_root", config.memplan_src_root))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.memplan_tools_dir, config.llvm_tools_dir]
tools = ["memplan-opt", "memplan-pack", "memplan-remat", "memplan-zoo", "mlir-opt", "mlir-runner"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# The `optimal` remat policy exists only when the build found CBC.
if getattr(config, "memplan_have_cbc", False):
    config.available_features.add("cbc")

# GPU tests run only where a CUDA device answers.
if shutil.which("nvidia-smi") and os.system("nvidia-smi -L > /dev/null 2>&1") == 0:
    config.available_features.add("cuda-gpu")

# Upstream bufferization and the runner libraries, for the execution tests
# (lowering to LLVM: memplan-opt --memplan-lower-to-llvm).
config.substitutions.append(
    ("%bufferize",
     "--one-shot-bufferize='bufferize-function-boundaries "
     "function-boundary-type-conversion=identity-layout-map'"))
config.substitutions.append(
    ("%runner_libs",
     "-shared-libs=%s/libmlir_runner_utils.so,%s/libmlir_c_runner_utils.so"
     % (config.mlir_lib_dir, config.mlir_lib_dir)))
config.substitutions.append(
    ("%check_budget", sys.executable + " " + os.path.join(config.test_source_root, "Utils", "check-budget.py")))
config.substitutions.append(
    ("%expect_exit", "bash " + os.path.join(config.test_source_root, "Utils", "expect-exit.sh")))
