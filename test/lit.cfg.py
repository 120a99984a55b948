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

# The `optimal` remat policy exists only when the build found CBC.
if getattr(config, "memplan_have_cbc", False):
    config.available_features.add("cbc")

# script(1) runs a command with a terminal (progress-line tests); the
# util-linux one, with -q -e -c (BSD's has other options).
import subprocess
if shutil.which("script") and subprocess.run(
        ["script", "-qec", "true", os.devnull],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("script")

# Headless Chromium (Debian's `chromium`) renders the HTML report: the
# `chromium` feature, and %chromium_dom (prints the DOM after the page's
# scripts ran). --no-sandbox: the tests may run as root.
chromium = shutil.which("chromium")
if chromium:
    chromium_cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                    "--dump-dom"]
    try:
        probe = subprocess.run(chromium_cmd + ["about:blank"],
                               stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=60)
        if probe.returncode == 0 and b"<html" in probe.stdout:
            config.available_features.add("chromium")
            config.substitutions.append(
                ("%chromium_dom", " ".join(chromium_cmd)))
    except (OSError, subprocess.TimeoutExpired):
        pass

# The GPU target: `cuda-toolkit` where memplan's CUDA runtime and
# memplan-compile --target=nvvm were built (programs link; kernels are
# serialized with ptxas); `cuda-gpu` where memplan-cuda-probe runs a tiny CUDA
# program (a PTX kernel launched and read back) on device 0.
import subprocess
if getattr(config, "memplan_have_cuda", False):
    config.available_features.add("cuda-toolkit")
    tools.append("memplan-compile")
    config.substitutions.append(
        ("%cuda_toolkit", os.path.dirname(config.cuda_toolkit_bin)))
    config.substitutions.append(
        ("%cuda_stub_dir", os.path.join(config.memplan_obj_root, "lib", "cuda-stub")))
    config.substitutions.append(
        ("%fake_cuda_dir", os.path.join(config.memplan_obj_root, "lib", "fake-cuda")))
    probe = os.path.join(config.memplan_tools_dir, "memplan-cuda-probe")
    try:
        result = subprocess.run([probe], capture_output=True, timeout=120)
        if result.returncode == 0:
            config.available_features.add("cuda-gpu")
    except (OSError, subprocess.TimeoutExpired):
        pass

llvm_config.add_tool_substitutions(tools, tool_dirs)

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
    ("%device_on_host", "bash " + os.path.join(config.test_source_root, "Utils", "device-on-host.sh")))
config.substitutions.append(
    ("%compare_outputs", sys.executable + " " + os.path.join(config.test_source_root, "Utils", "compare-outputs.py")))
config.substitutions.append(("%memplan_obj_root", config.memplan_obj_root))
config.substitutions.append(
    ("%memplan_plugin", os.path.join(config.memplan_obj_root, "lib", "libMemplanPlugin.so")))
config.substitutions.append(
    ("%compare_arenas", sys.executable + " " + os.path.join(config.test_source_root, "Utils", "compare-arenas.py")))
config.substitutions.append(
    ("%expect_exit", "bash " + os.path.join(config.test_source_root, "Utils", "expect-exit.sh")))

# The tool directory, for scripts that run the tools themselves (the fuzz
# drivers of bench/fuzz take it as --bin).
config.substitutions.append(("%memplan_bin", config.memplan_tools_dir))

# Builds with sanitizers (LLVM_USE_SANITIZER, build-asan/): the tools run
# several times slower, so the long-running tests scale down there.
if getattr(config, "memplan_sanitizers", ""):
    config.available_features.add("sanitizers")
